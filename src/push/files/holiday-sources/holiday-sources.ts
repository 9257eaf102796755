import type { z } from 'zod';
import type { ConfigIssue } from '../../../errors.js';
import type { HolidayEntry } from '../files-schema.js';
import type { ValidatedEntry } from '../validated-entry.js';
import { type CalendarSource, calendarSourceSchema, checkAgainstLibrary, expandCalendar } from './calendar-source.js';
import { expandIcs, type IcsSource, icsSourceSchema } from './ics-source.js';
import { type SourcePlace, sourcePath } from './source-place.js';

/** Keys a holidays file may hold next to `holidays:`. */
export const HOLIDAY_SOURCE_KEYS = ['calendar', 'ics'] as const;

/** One source or a list of them; each is named `calendar` or `calendar[i]` accordingly. */
function places(file: string, value: unknown): { place: SourcePlace; item: unknown }[] {
  if (Array.isArray(value)) return value.map((item, index) => ({ place: { file, index, single: false }, item }));
  return [{ place: { file, index: 0, single: true }, item: value }];
}

function parse<T>(
  schema: z.ZodType<T>,
  list: 'calendar' | 'ics',
  place: SourcePlace,
  item: unknown,
  issues: ConfigIssue[],
): T | undefined {
  const result = schema.safeParse(item);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    issues.push({
      path: sourcePath(place, list, issue.path),
      message: issue.code === 'unrecognized_keys' ? `unknown key(s): ${issue.keys.join(', ')}` : issue.message,
    });
  }
  return undefined;
}

/** The library checks on a calendar source whose other fields are wrong (a bad year and a bad country both reported). */
function checkWhatParses(item: unknown, place: SourcePlace): ConfigIssue[] {
  const raw = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const country = text(raw.country)?.toUpperCase();
  if (!country) return [];
  const region = text(raw.region)?.toUpperCase();
  const language = text(raw.language)?.toLowerCase();
  return checkAgainstLibrary({ country, ...(region ? { region } : {}), ...(language ? { language } : {}) }, place);
}

/**
 * Expands the `calendar:` and `ics:` sources of a holidays file into entries,
 * collecting every problem (with file, source, and field) and the warnings the
 * plan shows (skipped timed events, calendars with few public holidays).
 */
export function expandHolidaySources(
  file: string,
  record: Record<string, unknown>,
): { entries: ValidatedEntry<HolidayEntry>[]; issues: ConfigIssue[]; warnings: string[] } {
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const entries: ValidatedEntry<HolidayEntry>[] = [];
  if (record.calendar !== undefined && record.calendar !== null) {
    for (const { place, item } of places(file, record.calendar)) {
      const source = parse<CalendarSource>(calendarSourceSchema, 'calendar', place, item, issues);
      if (!source) {
        issues.push(...checkWhatParses(item, place));
        continue;
      }
      const out = expandCalendar(source, place);
      entries.push(...out.entries);
      issues.push(...out.issues);
      warnings.push(...out.warnings);
    }
  }
  if (record.ics !== undefined && record.ics !== null) {
    for (const { place, item } of places(file, record.ics)) {
      const source = parse<IcsSource>(icsSourceSchema, 'ics', place, item, issues);
      if (!source) continue;
      const out = expandIcs(source, place);
      entries.push(...out.entries);
      issues.push(...out.issues);
      warnings.push(...out.warnings);
    }
  }
  return { entries, issues, warnings };
}
