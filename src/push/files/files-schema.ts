import { z } from 'zod';
import { WEEKDAYS, type Weekday } from '../../api/index.js';

/**
 * The two push files (docs/hours-and-holidays.md, "File format"). Every entry has a `key`: its
 * local identity, stable across renames, mapped to a remote id through state.
 * Static rules live here; rules that need the API (inbox names) live in
 * ../plan/build-desired-state.ts, and the top-level shape is checked in validate-push-files.ts.
 */

/** The message for a wrong type, or `required` when the field is missing. */
const typeError = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : message),
});

export const key = z
  .string(typeError('expected a key (letters, digits, ".", "_", "-")'))
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    'expected letters, digits, ".", "_" or "-", starting with a letter or digit (at most 100)',
  );

const name = z
  .string(typeError('expected a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'at most 255 characters');

/** A real calendar date written YYYY-MM-DD (quoted, so YAML keeps it a string). */
export function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

const date = z
  .string(typeError('expected a date "YYYY-MM-DD" (quote it)'))
  .refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s), 'expected a date written YYYY-MM-DD')
  .refine((s) => !/^\d{4}-\d{2}-\d{2}$/.test(s) || isRealDate(s), { message: 'not a real calendar date' });

/** Shape only; rules across fields and entries are in validate-push-files.ts, so every problem is listed. */
export const holidayEntrySchema = z.strictObject({ key, name, start_date: date, end_date: date });

/** 24-hour time; one-digit hours are accepted and zero-padded when normalized. */
const time = z
  .string(typeError('expected a time "HH:MM" (quote it)'))
  .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'expected a 24-hour time HH:MM (00:00 to 23:59)');

const openDay = z
  .strictObject(
    { start: time, end: time },
    {
      error: (iss) =>
        iss.input === undefined
          ? 'missing: give {start, end}, or null for a closed day'
          : 'expected {start, end}, or null for a closed day',
    },
  )
  .refine((d) => d.start.padStart(5, '0') !== d.end.padStart(5, '0'), {
    path: ['end'],
    message: 'equals start; an end earlier than the start is an overnight shift, a closed day is null',
  })
  .nullable();

const scheduleSchema = z.strictObject(
  Object.fromEntries(WEEKDAYS.map((d) => [d, openDay])) as Record<Weekday, typeof openDay>,
  { error: 'expected all seven weekdays, monday to sunday' },
);

const channelSchema = z.strictObject({
  inbox: z.union([z.string().trim().min(1), z.number()], { error: 'expected an inbox name or id' }).transform(String),
  channel: z.enum(['email', 'livechat'], { error: 'only email and livechat channels can be covered' }),
});

export const businessHoursEntrySchema = z.strictObject({
  key,
  name: name.optional(),
  type: z.enum(['business_hours', 'calendar_24_7'], { error: 'expected business_hours or calendar_24_7' }),
  schedule: scheduleSchema.nullable().optional(),
  channels: z.array(channelSchema, { error: 'expected a list of {inbox, channel}' }).default([]),
  /** Remote id of an existing profile to take over on the first apply (see docs/hours-and-holidays.md). */
  adopt: z.string().trim().min(1, 'expected the id of a remote business-hours profile').optional(),
});

export type HolidayEntry = z.infer<typeof holidayEntrySchema>;
export type BusinessHoursEntry = z.infer<typeof businessHoursEntrySchema>;
