import type { z } from 'zod';
import type { ConfigIssue } from '../../errors.js';
import { isPlainObject } from '../../plain-object.js';
import {
  type BusinessHoursEntry,
  businessHoursEntrySchema,
  type HolidayEntry,
  holidayEntrySchema,
  isRealDate,
} from './files-schema.js';
import { expandHolidaySources, HOLIDAY_SOURCE_KEYS } from './holiday-sources/holiday-sources.js';
import { type EntryRef, entryLabel, issuePath } from './issue-path.js';
import { applyMovedKeys } from './moved-keys.js';
import type { ValidatedEntry } from './validated-entry.js';

/** A parsed push file before validation. */
export interface RawPushFile {
  file: string;
  data: unknown;
}

export interface ValidatedPushFiles {
  /** Plain entries first, then those expanded from `calendar:` and `ics:`; warnings are shown in the plan. */
  holidays?: { file: string; entries: ValidatedEntry<HolidayEntry>[]; warnings?: string[] };
  businessHours?: { file: string; entries: ValidatedEntry<BusinessHoursEntry>[] };
}

type List = 'holidays' | 'business_hours';

function zodEntryIssues(ref: EntryRef, error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({
    path: issuePath(ref, issue.path),
    message: issue.code === 'unrecognized_keys' ? `unknown key(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}

const asRecord = (v: unknown): Record<string, unknown> => (isPlainObject(v) ? v : {});

/** Keys a file may hold besides its list (a holidays file: its sources). */
const OTHER_KEYS: Record<List, readonly string[]> = { holidays: HOLIDAY_SOURCE_KEYS, business_hours: [] };

/** Finds the top-level list of a file, or reports why there is none. */
function topList(raw: RawPushFile, list: List, issues: ConfigIssue[]): unknown[] | undefined {
  const doc = raw.data;
  const record = asRecord(doc);
  const others = OTHER_KEYS[list];
  const hasAny = list in record || others.some((k) => k in record);
  if (doc === null || doc === undefined || typeof doc !== 'object' || Array.isArray(doc) || !hasAny) {
    const also = others.length > 0 ? ` (and/or ${others.map((k) => `\`${k}:\``).join(', ')})` : '';
    issues.push({ path: raw.file, message: `expected a mapping with a \`${list}:\` list${also}` });
    return undefined;
  }
  // `moved:` (old key → new key) may sit beside the entries of either file.
  const unknown = Object.keys(record).filter((k) => k !== list && k !== 'moved' && !others.includes(k));
  if (unknown.length > 0) issues.push({ path: raw.file, message: `unknown key(s): ${unknown.join(', ')}` });
  const value = record[list];
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push({ path: `${raw.file}, ${list}`, message: `expected a list of entries` });
    return undefined;
  }
  return value;
}

/** Parses every entry; returns the valid ones and collects the problems of the others. */
function parseEntries<T>(
  raw: RawPushFile,
  list: List,
  schema: z.ZodType<T>,
  crossRules: (item: Record<string, unknown>, ref: EntryRef) => ConfigIssue[],
  issues: ConfigIssue[],
): ValidatedEntry<T>[] {
  const items = topList(raw, list, issues) ?? [];
  const out: ValidatedEntry<T>[] = [];
  const firstByKey = new Map<string, EntryRef>();
  items.forEach((item, index) => {
    const rawKey = asRecord(item).key;
    const ref: EntryRef = { file: raw.file, list, index, key: typeof rawKey === 'string' ? rawKey : undefined };
    const result = schema.safeParse(item);
    const cross = crossRules(asRecord(item), ref);
    issues.push(...(result.success ? [] : zodEntryIssues(ref, result.error)), ...cross);
    if (ref.key !== undefined) {
      const first = firstByKey.get(ref.key);
      if (first)
        issues.push({ path: issuePath(ref, ['key']), message: `duplicate key, already used by ${entryLabel(first)}` });
      else firstByKey.set(ref.key, ref);
    }
    if (result.success && cross.length === 0) out.push({ ref, entry: result.data });
  });
  return out;
}

/** start_date <= end_date, checked whenever both dates are themselves valid. */
function holidayRules(item: Record<string, unknown>, ref: EntryRef): ConfigIssue[] {
  const { start_date: start, end_date: end } = item;
  if (typeof start === 'string' && typeof end === 'string' && isRealDate(start) && isRealDate(end) && end < start) {
    return [{ path: issuePath(ref, ['end_date']), message: `must be on or after start_date (${start})` }];
  }
  return [];
}

/** A schedule exactly when type is business_hours. */
function profileRules(item: Record<string, unknown>, ref: EntryRef): ConfigIssue[] {
  const hasSchedule = item.schedule !== undefined && item.schedule !== null;
  if (item.type === 'business_hours' && !hasSchedule) {
    return [
      {
        path: issuePath(ref, ['schedule']),
        message: 'required for type business_hours: all seven weekdays, null = closed',
      },
    ];
  }
  if (item.type === 'calendar_24_7' && hasSchedule) {
    return [
      { path: issuePath(ref, ['schedule']), message: 'must be omitted for type calendar_24_7 (open around the clock)' },
    ];
  }
  return [];
}

/** The same inbox reference and channel in two profiles (a channel belongs to at most one profile). */
function duplicateChannels(entries: ValidatedEntry<BusinessHoursEntry>[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const owner = new Map<string, EntryRef>();
  for (const { ref, entry } of entries) {
    entry.channels.forEach((c, i) => {
      const id = `${c.inbox}\u0000${c.channel}`;
      const first = owner.get(id);
      if (first && first.index !== ref.index) {
        issues.push({
          path: issuePath(ref, ['channels', i]),
          message: `${c.inbox} ${c.channel} is already covered by ${entryLabel(first)}; a channel belongs to at most one profile`,
        });
      } else if (first) {
        issues.push({ path: issuePath(ref, ['channels', i]), message: `${c.inbox} ${c.channel} is listed twice` });
      } else owner.set(id, ref);
    });
  }
  return issues;
}

/** What fixes a clash, for the source at hand: an ics source has no `exclude`, its key comes from the UID. */
const DUPLICATE_ADVICE = {
  calendar: 'exclude it from this source or rename the other entry',
  ics: "change the event's UID in the calendar file or rename the other entry",
};

/** An expanded key that a plain entry or an earlier source already uses. */
function duplicateKeys(plain: ValidatedEntry<HolidayEntry>[], expanded: ValidatedEntry<HolidayEntry>[]): ConfigIssue[] {
  const first = new Map(plain.map((e) => [e.entry.key, e.ref]));
  const issues: ConfigIssue[] = [];
  for (const { ref, entry } of expanded) {
    const earlier = first.get(entry.key);
    if (earlier) {
      issues.push({
        path: issuePath(ref),
        message: `duplicate key, already used by ${entryLabel(earlier)}; ${DUPLICATE_ADVICE[ref.list === 'ics' ? 'ics' : 'calendar']}`,
      });
    } else first.set(entry.key, ref);
  }
  return issues;
}

/**
 * Every rule that needs no API call (docs/hours-and-holidays.md): all problems are collected,
 * each naming file, entry and field. An empty `issues` means the files are valid.
 */
export function validatePushFiles(raw: { holidays?: RawPushFile; businessHours?: RawPushFile }): {
  files: ValidatedPushFiles;
  issues: ConfigIssue[];
} {
  const issues: ConfigIssue[] = [];
  const files: ValidatedPushFiles = {};
  if (raw.holidays) {
    const entries = parseEntries(raw.holidays, 'holidays', holidayEntrySchema, holidayRules, issues);
    const expanded = expandHolidaySources(raw.holidays.file, asRecord(raw.holidays.data));
    issues.push(...expanded.issues, ...duplicateKeys(entries, expanded.entries));
    files.holidays = { file: raw.holidays.file, entries: [...entries, ...expanded.entries] };
    applyMovedKeys(raw.holidays.file, asRecord(raw.holidays.data).moved, files.holidays.entries, issues);
    if (expanded.warnings.length > 0) files.holidays.warnings = expanded.warnings;
  }
  if (raw.businessHours) {
    const entries = parseEntries(raw.businessHours, 'business_hours', businessHoursEntrySchema, profileRules, issues);
    issues.push(...duplicateChannels(entries));
    applyMovedKeys(raw.businessHours.file, asRecord(raw.businessHours.data).moved, entries, issues);
    files.businessHours = { file: raw.businessHours.file, entries };
  }
  return { files, issues };
}
