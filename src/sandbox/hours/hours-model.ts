/**
 * The sandbox's business-hours profiles and holidays as stored in memory, and
 * their wire shapes (the wire shape is a sandbox choice: the API document says
 * only which fields exist, see "Other resources named in the interface").
 */

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const PROFILE_TYPES = ['calendar_24_7', 'business_hours'] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

/** Only these two channels of an inbox can be covered (API document, Business-hours profile). */
export const CHANNELS = ['email', 'livechat'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ScheduleEntry {
  day: Weekday;
  /** `HH:MM`, or null with `end` null when the day is closed. */
  start: string | null;
  end: string | null;
}

export interface InboxChannel {
  inbox_id: string;
  channel: Channel;
}

export interface StoredProfile {
  id: string;
  organizationId: string;
  name: string;
  type: ProfileType;
  /** Seven entries in weekday order; null for calendar_24_7. */
  weekly_schedule: ScheduleEntry[] | null;
  inbox_channels: InboxChannel[];
  created_at: string;
  updated_at: string;
}

export interface StoredHoliday {
  id: string;
  organizationId: string;
  name: string;
  start_date: string;
  end_date: string;
  created_at: string;
  updated_at: string;
}

export type HolidayStatus = 'upcoming' | 'active' | 'past';

export function profileToWire(p: StoredProfile): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    type: p.type,
    weekly_schedule: p.weekly_schedule ? p.weekly_schedule.map((e) => ({ ...e })) : null,
    inbox_channels: p.inbox_channels.map((c) => ({ ...c })),
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

export function holidayToWire(h: StoredHoliday, status: HolidayStatus): Record<string, unknown> {
  return {
    id: h.id,
    name: h.name,
    start_date: h.start_date,
    end_date: h.end_date,
    status,
    created_at: h.created_at,
    updated_at: h.updated_at,
  };
}

/** A channel's identity inside one organization. */
export function channelKey(c: InboxChannel): string {
  return `${c.inbox_id}\u0000${c.channel}`;
}
