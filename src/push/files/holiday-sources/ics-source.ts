import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ICAL from 'ical.js';
import { z } from 'zod';
import { shortTextHash } from '../../../canonical-json.js';
import type { ConfigIssue } from '../../../errors.js';
import { type HolidayEntry, isRealDate } from '../files-schema.js';
import type { EntryRef } from '../issue-path.js';
import type { ValidatedEntry } from '../validated-entry.js';
import { addDays } from './add-days.js';
import { checkIcsEvent } from './check-ics-event.js';
import { firstNonUtf8Line, type IcsEventLines, scanIcsEvents } from './ics-lines.js';
import { readAllDayAsOutlookMeans } from './outlook-all-day.js';
import { slug } from './slug.js';
import { type SourcePlace, sourcePath } from './source-place.js';

/**
 * `ics:` in the holidays file: all-day events of an iCalendar file (RFC 5545),
 * parsed by ical.js, become holiday ranges.
 *
 * - DTEND of an all-day event is exclusive (RFC 5545 §3.6.1), the API's
 *   end_date inclusive: end_date is DTEND minus one day. No DTEND and no
 *   DURATION means one day.
 * - Recurring events (RRULE, RDATE, EXDATE, moved instances with RECURRENCE-ID)
 *   are expanded for `years:`, which they require; single events outside
 *   `years:` (when given) are left out.
 * - Timed events are not holidays: they are skipped and the plan says so.
 *   Cancelled events (STATUS:CANCELLED) are skipped silently.
 * - A single event's key is its UID, so moving the event to another date
 *   updates the same holiday. An occurrence of a recurring event is
 *   `<uid>-<YYYY-MM-DD>` (its RECURRENCE-ID, the original date, so moving one
 *   instance updates it). The UID is written as a slug, or `uid-<hash>` when it
 *   is long or has no letters or digits. A single event's older key
 *   `<uid>-<date>` is its alias: state mapped under it moves to the new key.
 */

export const icsSourceSchema = z.union(
  [
    z
      .string()
      .trim()
      .min(1)
      .transform((file) => ({ file, years: undefined as number[] | undefined })),
    z.strictObject({
      file: z
        .string({ error: (i) => (i.input === undefined ? 'required' : 'expected a path') })
        .trim()
        .min(1),
      years: z
        .array(
          z
            .number({ error: 'expected a year, e.g. 2027' })
            .int('expected a whole year')
            .min(1970, 'expected a year from 1970 to 2199')
            .max(2199, 'expected a year from 1970 to 2199'),
          { error: 'expected a list of years, e.g. [2026, 2027]' },
        )
        .min(1, 'expected at least one year')
        .optional(),
    }),
  ],
  { error: 'expected a path to an .ics file, or {file, years}' },
);

export type IcsSource = z.infer<typeof icsSourceSchema>;

const TIMED = 'skipped, a timed event is not a holiday (only all-day events are)';

/** Occurrences looked at per recurring event at most: a daily rule from long ago ends here, reported. */
const MAX_OCCURRENCES = 20_000;

const dateOf = (t: ICAL.Time) =>
  `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;

function uidPart(uid: string): string {
  const s = slug(uid);
  return s.length > 0 && s.length <= 60 ? s : `uid-${shortTextHash(uid)}`;
}

interface Occurrence {
  start: ICAL.Time;
  end: ICAL.Time;
  recurrenceId: ICAL.Time;
  summary: string;
  cancelled: boolean;
}

function readCalendar(
  path: string,
  where: string,
  issues: ConfigIssue[],
): { root: ICAL.Component; events: IcsEventLines[] } | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    issues.push({
      path: where,
      message: code === 'ENOENT' ? `file not found (${path})` : `cannot read ${path}: ${code}`,
    });
    return undefined;
  }
  const badLine = firstNonUtf8Line(bytes);
  if (badLine !== undefined) {
    // RFC 5545 §3.1.4: UTF-8. Guessing Latin-1 would turn München into M�nchen in the helpdesk.
    issues.push({ path: `${where}, line ${badLine}`, message: 'not UTF-8 text; save the file as UTF-8' });
    return undefined;
  }
  // A byte-order mark, as some exporters write, is not part of the first line.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') {
    issues.push({ path: where, message: 'empty file; expected BEGIN:VCALENDAR' });
    return undefined;
  }
  try {
    const parsed = ICAL.parse(text);
    const root = new ICAL.Component(Array.isArray(parsed[0]) ? (parsed[0] as unknown[]) : parsed);
    if (root.name !== 'vcalendar') throw new Error(`expected BEGIN:VCALENDAR, found ${root.name.toUpperCase()}`);
    return { root, events: scanIcsEvents(text) };
  } catch (cause) {
    issues.push({ path: where, message: `not a valid iCalendar file: ${(cause as Error).message.split('\n')[0]}` });
    return undefined;
  }
}

/** Every occurrence of one UID within the years (all of them for a single event without years). */
function occurrences(event: ICAL.Event, years: number[] | undefined, problem: (m: string) => void): Occurrence[] {
  const cancelled = (e: ICAL.Event) =>
    e.component.getFirstPropertyValue('status')?.toString().toUpperCase() === 'CANCELLED';
  if (!event.isRecurring()) {
    return [
      {
        start: event.startDate,
        end: event.endDate,
        recurrenceId: event.startDate,
        summary: event.summary,
        cancelled: cancelled(event),
      },
    ];
  }
  if (!years) {
    problem('recurring event: set years on this ics source to expand it');
    return [];
  }
  const last = Math.max(...years);
  const out: Occurrence[] = [];
  const it = event.iterator();
  for (let n = 0; ; n++) {
    const next = it.next();
    if (!next || next.year > last) break;
    if (n >= MAX_OCCURRENCES) {
      problem(`more than ${MAX_OCCURRENCES} occurrences before ${last + 1}; not expanded`);
      return [];
    }
    const d = event.getOccurrenceDetails(next);
    out.push({
      start: d.startDate,
      end: d.endDate,
      recurrenceId: d.recurrenceId,
      summary: d.item.summary,
      cancelled: cancelled(d.item),
    });
  }
  return out;
}

/**
 * Reads and expands one ics source (path relative to the holidays file).
 * Returns entries, problems (exit 64) and warnings (shown in the plan).
 */
export function expandIcs(
  source: IcsSource,
  place: SourcePlace,
): { entries: ValidatedEntry<HolidayEntry>[]; issues: ConfigIssue[]; warnings: string[] } {
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const where = `${sourcePath(place, 'ics')} (${source.file})`;
  const calendar = readCalendar(resolve(dirname(place.file), source.file), where, issues);
  if (!calendar) return { entries: [], issues, warnings };
  const byUid = new Map<string, { master?: ICAL.Event; exceptions: ICAL.Event[] }>();
  calendar.root.getAllSubcomponents('vevent').forEach((component, i) => {
    readAllDayAsOutlookMeans(component);
    const event = new ICAL.Event(component);
    const uid = event.uid;
    const lines = calendar.events[i];
    if (!uid) {
      const line = lines ? ` at line ${lines.line}` : '';
      issues.push({ path: `${where}, VEVENT ${i + 1}${line}`, message: 'UID: required' });
      return;
    }
    const found = checkIcsEvent(lines, `${where}, event UID "${uid}"`);
    if (found.length > 0) {
      issues.push(...found);
      return;
    }
    const group = byUid.get(uid) ?? { exceptions: [] };
    if (event.isRecurrenceException()) group.exceptions.push(event);
    else group.master = event;
    byUid.set(uid, group);
  });
  const entries: ValidatedEntry<HolidayEntry>[] = [];
  for (const [uid, group] of byUid) {
    const event = group.master ?? group.exceptions[0]!;
    for (const ex of group.master ? group.exceptions : []) event.relateException(ex);
    const at = `${where}, event UID "${uid}"`;
    const problem = (message: string) => issues.push({ path: at, message });
    if (!event.startDate.isDate) {
      // Once per event, not per occurrence: a weekly meeting would otherwise fill the plan.
      const recurring = event.isRecurring();
      if (recurring || !source.years || source.years.includes(event.startDate.year)) {
        warnings.push(`${at}${recurring ? ' (recurring)' : ` on ${dateOf(event.startDate)}`}: ${TIMED}`);
      }
      continue;
    }
    for (const o of occurrences(event, source.years, problem)) {
      if (o.cancelled) continue;
      const start = dateOf(o.start);
      if (source.years && !source.years.includes(o.start.year)) continue;
      if (!o.start.isDate) {
        warnings.push(`${at} on ${start}: ${TIMED}`);
        continue;
      }
      // A DTEND equal to DTSTART is read as a one-day event (one before it is refused above).
      const exclusiveEnd = dateOf(o.end);
      const end = exclusiveEnd > start ? addDays(exclusiveEnd, -1) : start;
      if (!isRealDate(start)) {
        issues.push({ path: `${at}, DTSTART`, message: `not a real calendar date (${start})` });
        continue;
      }
      const name = (o.summary ?? '').trim();
      if (name === '' || name.length > 255) {
        issues.push({
          path: `${at}, SUMMARY`,
          message: name === '' ? 'required: it becomes the holiday name' : 'at most 255 characters',
        });
        continue;
      }
      const dated = `${uidPart(uid)}-${dateOf(o.recurrenceId)}`;
      const single = !event.isRecurring();
      const key = single ? uidPart(uid) : dated;
      const ref: EntryRef = { ...place, list: 'ics', key, origin: `${source.file} UID ${uid}` };
      entries.push({
        ref,
        entry: { key, name, start_date: start, end_date: end },
        ...(single ? { aliases: [dated] } : {}),
      });
    }
  }
  return { entries, issues, warnings };
}
