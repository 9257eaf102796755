import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/canonical-json.js';
import { formHash, padTime, remoteHolidayForm, remoteProfileForm } from '../../../src/push/plan/normalize.js';

describe('normalized forms', () => {
  it('zero-pads times and leaves odd values to compare unequal', () => {
    expect([padTime('9:00'), padTime('09:00'), padTime('09:00:00'), padTime(null), padTime('9am')]).toEqual([
      '09:00',
      '09:00',
      '09:00',
      null,
      '9am',
    ]);
  });

  it('reads a remote profile whatever the weekday and channel order', () => {
    const a = remoteProfileForm({
      id: 'x',
      name: 'EU',
      type: 'business_hours',
      weekly_schedule: [
        { day: 'sunday', start: null, end: null },
        { day: 'monday', start: '9:00', end: '17:00' },
      ],
      inbox_channels: [
        { inbox_id: 'b', channel: 'email' },
        { inbox_id: 'a', channel: 'livechat' },
        { inbox_id: 'a', channel: 'email' },
        { inbox_id: 'a', channel: 'email' },
      ],
      created_at: '2026-01-01T00:00:00Z',
    });
    expect(a.weekly_schedule?.map((d) => d.day)).toEqual([
      'monday',
      'tuesday',
      'wednesday',
      'thursday',
      'friday',
      'saturday',
      'sunday',
    ]);
    expect(a.weekly_schedule?.[0]).toEqual({ day: 'monday', start: '09:00', end: '17:00' });
    expect(a.weekly_schedule?.[1]).toEqual({ day: 'tuesday', start: null, end: null });
    expect(a.inbox_channels).toEqual([
      { inbox_id: 'a', channel: 'email' },
      { inbox_id: 'a', channel: 'livechat' },
      { inbox_id: 'b', channel: 'email' },
    ]);
    const b = remoteProfileForm({
      name: 'EU',
      type: 'business_hours',
      weekly_schedule: { monday: { start: '09:00', end: '17:00' }, sunday: null },
      inbox_channels: [...(a.inbox_channels as object[])].reverse(),
      updated_at: 'ignored',
    });
    expect(formHash(b)).toBe(formHash(a));
  });

  it('gives calendar_24_7 a null schedule whatever came back, and cuts holiday date-times to dates', () => {
    expect(remoteProfileForm({ name: 'A', type: 'calendar_24_7', weekly_schedule: [] }).weekly_schedule).toBeNull();
    expect(
      remoteHolidayForm({ name: 'NY', start_date: '2027-01-01T00:00:00Z', end_date: '2027-01-01', status: 'upcoming' }),
    ).toEqual({
      name: 'NY',
      start_date: '2027-01-01',
      end_date: '2027-01-01',
    });
  });

  it('serializes keys in a stable order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }], u: undefined })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
  });
});
