import type { ResourceKind, ResourceRecord } from '../../../src/push/mappings/resource-store.js';
import type { DesiredHoliday, DesiredProfile } from '../../../src/push/plan/build-desired-state.js';
import {
  type ChannelRef,
  formHash,
  type HolidayForm,
  normalizeSchedule,
  type ProfileForm,
} from '../../../src/push/plan/normalize.js';
import type { RemoteObject } from '../../../src/push/plan/plan-types.js';

export const ch = (inbox_id: string, channel: 'email' | 'livechat' = 'email'): ChannelRef => ({ inbox_id, channel });

export function hours(name: string, channels: ChannelRef[] = [], open = '09:00'): ProfileForm {
  return {
    name,
    type: 'business_hours',
    weekly_schedule: normalizeSchedule(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => ({ day, start: open, end: '17:00' })),
    ),
    inbox_channels: channels,
  };
}

export const always = (name: string, channels: ChannelRef[] = []): ProfileForm => ({
  name,
  type: 'calendar_24_7',
  weekly_schedule: null,
  inbox_channels: channels,
});

export const holiday = (name: string, start_date: string, end_date = start_date): HolidayForm => ({
  name,
  start_date,
  end_date,
});

export function wantProfile(key: string, form: ProfileForm, index = 0, adopt?: string): DesiredProfile {
  return { key, form, ref: { file: 'bh.yaml', list: 'business_hours', index, key }, ...(adopt ? { adopt } : {}) };
}

export function wantHoliday(key: string, form: HolidayForm, index = 0): DesiredHoliday {
  return { key, form, ref: { file: 'h.yaml', list: 'holidays', index, key } };
}

export const remote = <F extends ProfileForm | HolidayForm>(id: string, form: F): RemoteObject<F> => ({ id, form });

export function mapped(
  kind: ResourceKind,
  key: string,
  remote_id: string,
  applied: ProfileForm | HolidayForm,
): ResourceRecord {
  return { kind, key, remote_id, applied_hash: formHash(applied), applied_at: '2026-11-01T00:00:00.000Z' };
}
