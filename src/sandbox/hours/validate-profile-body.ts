import { isPlainObject } from '../protocol/validate.js';
import { FieldErrors, isHhMm, rejectUnknownKeys } from './field-errors.js';
import {
  CHANNELS,
  type Channel,
  channelKey,
  type InboxChannel,
  PROFILE_TYPES,
  type ProfileType,
  type ScheduleEntry,
  type StoredProfile,
  WEEKDAYS,
  type Weekday,
} from './hours-model.js';

/** The profile fields a write sets, after validation. */
export interface ProfileFields {
  name: string;
  type: ProfileType;
  weekly_schedule: ScheduleEntry[] | null;
  inbox_channels: InboxChannel[];
}

export type ProfileValidation = { ok: true; fields: ProfileFields } | { ok: false; errors: FieldErrors };

const PROFILE_KEYS = ['name', 'type', 'weekly_schedule', 'inbox_channels'] as const;
export const DEFAULT_PROFILE_NAME = 'Business hours';

function validateName(value: unknown, errors: FieldErrors): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') errors.add('name', 'The name must be a non-empty string.');
  else if (value.length > 255) errors.add('name', 'The name may not be greater than 255 characters.');
  else return value;
  return undefined;
}

function validateEntry(entry: unknown, i: number, seen: Set<string>, errors: FieldErrors): ScheduleEntry | undefined {
  const at = `weekly_schedule.${i}`;
  if (!isPlainObject(entry)) {
    errors.add(at, 'Each entry must be an object with day, start and end.');
    return undefined;
  }
  rejectUnknownKeys(entry, ['day', 'start', 'end'], errors, `${at}.`);
  const before = Object.keys(errors.errors).length;
  const day = entry.day;
  if (!(WEEKDAYS as readonly unknown[]).includes(day)) errors.add(`${at}.day`, 'The selected day is invalid.');
  else if (seen.has(day as string)) errors.add(`${at}.day`, 'The day is listed more than once.');
  else seen.add(day as string);
  const { start, end } = entry;
  if (start === null && end === null) {
    // Both null: the day is closed (sandbox choice, see docs/sandbox.md).
  } else if (start === null || end === null || start === undefined || end === undefined) {
    const missing = start === null || start === undefined ? 'start' : 'end';
    errors.add(`${at}.${missing}`, 'Set both start and end, or both to null for a closed day.');
  } else {
    if (!isHhMm(start)) errors.add(`${at}.start`, 'The start must be a 24-hour time HH:MM (00:00 to 23:59).');
    if (!isHhMm(end)) errors.add(`${at}.end`, 'The end must be a 24-hour time HH:MM (00:00 to 23:59).');
    // An end earlier than the start is an overnight shift; an equal end is ambiguous and refused.
    if (isHhMm(start) && start === end) errors.add(`${at}.end`, 'The end must differ from the start.');
  }
  if (Object.keys(errors.errors).length > before) return undefined;
  return { day: day as Weekday, start: start as string | null, end: end as string | null };
}

/** Seven entries, one per weekday, returned in weekday order. */
function validateSchedule(value: unknown, errors: FieldErrors): ScheduleEntry[] | undefined {
  if (!Array.isArray(value) || value.length !== 7) {
    errors.add('weekly_schedule', 'The weekly schedule must have exactly seven entries, one per weekday.');
    return undefined;
  }
  const seen = new Set<string>();
  const entries = value.map((entry, i) => validateEntry(entry, i, seen, errors));
  if (entries.some((e) => e === undefined)) return undefined;
  const byDay = new Map(entries.map((e) => [e!.day, e!]));
  return WEEKDAYS.map((day) => byDay.get(day)!);
}

function validateChannels(
  value: unknown,
  inboxIds: ReadonlySet<string>,
  errors: FieldErrors,
): InboxChannel[] | undefined {
  if (!Array.isArray(value)) {
    errors.add('inbox_channels', 'The inbox channels must be an array.');
    return undefined;
  }
  const before = Object.keys(errors.errors).length;
  const seen = new Set<string>();
  const out: InboxChannel[] = [];
  for (const [i, item] of value.entries()) {
    const at = `inbox_channels.${i}`;
    if (!isPlainObject(item)) {
      errors.add(at, 'Each entry must be an object with inbox_id and channel.');
      continue;
    }
    rejectUnknownKeys(item, ['inbox_id', 'channel'], errors, `${at}.`);
    if (typeof item.inbox_id !== 'string' || !inboxIds.has(item.inbox_id)) {
      errors.add(`${at}.inbox_id`, 'The selected inbox id is invalid.');
    }
    if (!(CHANNELS as readonly unknown[]).includes(item.channel)) {
      errors.add(`${at}.channel`, 'Only the email and livechat channels can be covered.');
    }
    const channel = { inbox_id: String(item.inbox_id), channel: item.channel as Channel };
    if (seen.has(channelKey(channel))) errors.add(at, 'The channel is listed more than once.');
    seen.add(channelKey(channel));
    out.push(channel);
  }
  return Object.keys(errors.errors).length > before ? undefined : out;
}

/**
 * Validates a POST (no `existing`) or PATCH body and merges it over the stored
 * profile. PATCH: omitted keys keep their stored value and an explicit null is
 * ignored (API document, Endpoints, Other operations); POST treats null as omitted.
 */
export function validateProfileBody(
  body: unknown,
  inboxIds: ReadonlySet<string>,
  existing?: StoredProfile,
): ProfileValidation {
  const errors = new FieldErrors();
  if (!isPlainObject(body)) {
    errors.add('body', 'The request body must be a JSON object.');
    return { ok: false, errors };
  }
  rejectUnknownKeys(body, PROFILE_KEYS, errors);
  const given = (key: (typeof PROFILE_KEYS)[number]) => body[key] !== undefined && body[key] !== null;

  const name = given('name') ? validateName(body.name, errors) : (existing?.name ?? DEFAULT_PROFILE_NAME);
  let type = existing?.type;
  if (given('type')) {
    if ((PROFILE_TYPES as readonly unknown[]).includes(body.type)) type = body.type as ProfileType;
    else errors.add('type', 'The type must be calendar_24_7 or business_hours.');
  } else if (!existing) errors.add('type', 'The type field is required.');

  let schedule = existing?.weekly_schedule ?? null;
  if (given('weekly_schedule')) {
    schedule = validateSchedule(body.weekly_schedule, errors) ?? null;
    if (type === 'calendar_24_7') {
      errors.add('weekly_schedule', 'A calendar_24_7 profile has no weekly schedule; send null or omit it.');
    }
  } else if (type === 'business_hours' && schedule === null) {
    errors.add('weekly_schedule', 'The weekly schedule is required for a business_hours profile.');
  }
  if (type === 'calendar_24_7') schedule = null;

  const channels = given('inbox_channels')
    ? validateChannels(body.inbox_channels, inboxIds, errors)
    : (existing?.inbox_channels ?? []);

  if (!errors.empty || name === undefined || type === undefined || channels === undefined) return { ok: false, errors };
  return { ok: true, fields: { name, type, weekly_schedule: schedule, inbox_channels: channels } };
}
