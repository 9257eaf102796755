import { type ApiObject, WEEKDAYS, type Weekday } from '../../api/index.js';
import { canonicalHash } from '../../canonical-json.js';

/**
 * Normalized forms: what a profile or holiday means, independent of how it was
 * written (time padding, weekday order, channel order). Desired (config) and
 * remote (API) objects are both brought to these forms before comparing.
 */
export interface DayHours {
  day: Weekday;
  start: string | null;
  end: string | null;
}

export interface ChannelRef {
  inbox_id: string;
  channel: 'email' | 'livechat';
}

export interface ProfileForm {
  name: string;
  type: 'business_hours' | 'calendar_24_7';
  /** Seven days in weekday order; null for calendar_24_7. */
  weekly_schedule: DayHours[] | null;
  /** Sorted by inbox id, then channel; no duplicates. */
  inbox_channels: ChannelRef[];
}

export interface HolidayForm {
  name: string;
  start_date: string;
  end_date: string;
}

/** `9:00` → `09:00`; anything unexpected is kept as it is (it then compares unequal). */
export function padTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  const m = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(text);
  return m ? `${m[1]!.padStart(2, '0')}:${m[2]}` : text;
}

export function sortChannels(channels: ChannelRef[]): ChannelRef[] {
  const seen = new Map<string, ChannelRef>();
  for (const c of channels) seen.set(`${c.inbox_id}\u0000${c.channel}`, { inbox_id: c.inbox_id, channel: c.channel });
  return [...seen.values()].sort((a, b) =>
    a.inbox_id !== b.inbox_id
      ? a.inbox_id < b.inbox_id
        ? -1
        : 1
      : a.channel < b.channel
        ? -1
        : a.channel > b.channel
          ? 1
          : 0,
  );
}

/** Seven days in weekday order from any list of `{day, start, end}`; a day not listed is closed. */
export function normalizeSchedule(
  entries: ReadonlyArray<{ day?: unknown; start?: unknown; end?: unknown }>,
): DayHours[] {
  const byDay = new Map<string, { start?: unknown; end?: unknown }>();
  for (const e of entries) if (typeof e?.day === 'string') byDay.set(e.day.toLowerCase(), e);
  return WEEKDAYS.map((day) => {
    const e = byDay.get(day);
    const start = padTime(e?.start);
    const end = padTime(e?.end);
    return start === null || end === null ? { day, start: null, end: null } : { day, start, end };
  });
}

/** A profile as the API returned it, read tolerantly (unknown fields ignored, odd shapes compared as they are). */
export function remoteProfileForm(raw: ApiObject): ProfileForm {
  const type = raw.type === 'calendar_24_7' ? 'calendar_24_7' : 'business_hours';
  const schedule = raw.weekly_schedule;
  let weekly: DayHours[] | null = null;
  if (type === 'business_hours' && Array.isArray(schedule)) weekly = normalizeSchedule(schedule);
  else if (type === 'business_hours' && schedule && typeof schedule === 'object') {
    // Tolerated alternative shape: an object keyed by weekday.
    weekly = normalizeSchedule(
      Object.entries(schedule as Record<string, { start?: unknown; end?: unknown } | null>).map(([day, v]) => ({
        day,
        ...(v ?? {}),
      })),
    );
  }
  const channels = Array.isArray(raw.inbox_channels) ? raw.inbox_channels : [];
  return {
    name: typeof raw.name === 'string' ? raw.name : '',
    type,
    weekly_schedule: weekly,
    inbox_channels: sortChannels(
      channels
        .filter((c): c is { inbox_id: unknown; channel: unknown } => typeof c === 'object' && c !== null)
        .map((c) => ({ inbox_id: String(c.inbox_id), channel: c.channel as ChannelRef['channel'] })),
    ),
  };
}

/** A holiday as the API returned it; date-times are cut to their date. */
export function remoteHolidayForm(raw: ApiObject): HolidayForm {
  const day = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : String(v));
  return {
    name: typeof raw.name === 'string' ? raw.name : '',
    start_date: day(raw.start_date),
    end_date: day(raw.end_date),
  };
}

/** The hash stored as `applied_hash` and compared for drift. */
export function formHash(form: ProfileForm | HolidayForm): string {
  return canonicalHash(form);
}
