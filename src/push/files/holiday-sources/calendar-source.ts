import { createRequire } from 'node:module';
import type { default as Holidays, HolidaysTypes } from 'date-holidays';
import { z } from 'zod';
import type { ConfigIssue } from '../../../errors.js';
import type { HolidayEntry } from '../files-schema.js';
import type { EntryRef } from '../issue-path.js';
import type { ValidatedEntry } from '../validated-entry.js';
import { addDays } from './add-days.js';
import { holidayId, yearKeys } from './calendar-keys.js';
import { slug } from './slug.js';
import { type SourcePlace, sourcePath } from './source-place.js';

const require = createRequire(import.meta.url);
let library: typeof Holidays | undefined;

/**
 * date-holidays (and its astronomy tables: about 250 modules, a fifth of a
 * CPU-second) is loaded when a calendar source is first read, not when the CLI
 * starts: a sync never needs it. Its CommonJS build, the same code as its ESM one.
 */
function holidaysLibrary(): typeof Holidays {
  library ??= require('date-holidays') as typeof Holidays;
  return library;
}

/**
 * `calendar:` in the holidays file: public holidays of a country (and region)
 * computed by date-holidays, expanded into ordinary holiday entries.
 *
 * Keys are `<country>-<region>-<year>-<slug>`, e.g. `de-by-2026-neujahr`: the
 * slug comes from the holiday's name in the country's own (first) language of
 * the library, whatever `language:` asks for, so changing the language renames
 * and never re-creates, and adding a year only adds keys. Two holidays of one
 * year with the same slug get their date appended (`-01-02`).
 */

export const HOLIDAY_TYPES = ['public', 'bank', 'school', 'optional', 'observance'] as const;

const year = z
  .number({ error: 'expected a year, e.g. 2027' })
  .int('expected a whole year')
  .min(1970, 'expected a year from 1970 to 2199')
  .max(2199, 'expected a year from 1970 to 2199');

const code = (what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? 'required' : `expected a ${what} code`) })
    .trim()
    .min(1, `expected a ${what} code`)
    .transform((s) => s.toUpperCase());

export const calendarSourceSchema = z.strictObject({
  country: code('country'),
  region: code('region').optional(),
  /** A part of the region the library knows, e.g. DE BY KATH (Catholic municipalities: 15 August). */
  subregion: code('subregion').optional(),
  years: z
    .array(year, { error: (i) => (i.input === undefined ? 'required' : 'expected a list of years, e.g. [2026, 2027]') })
    .min(1, 'expected at least one year')
    .refine((ys) => new Set(ys).size === ys.length, 'lists a year twice'),
  types: z
    .array(z.enum(HOLIDAY_TYPES, { error: `expected one of ${HOLIDAY_TYPES.join(', ')}` }))
    .min(1, 'expected at least one type')
    .default(['public']),
  language: z.string({ error: 'expected a language code, e.g. de' }).trim().toLowerCase().optional(),
  /** Holidays left out: a key (`de-by-2026-fronleichnam`) or a slug for every year (`fronleichnam`). */
  exclude: z
    .array(z.string({ error: 'expected a key or slug' }), { error: 'expected a list of keys or slugs' })
    .default([]),
  /** Names replaced: key or slug → name. */
  rename: z
    .record(
      z.string(),
      z.string({ error: 'expected a name' }).trim().min(1, 'must not be empty').max(255, 'at most 255 characters'),
      { error: 'expected a mapping of key or slug to name' },
    )
    .default({}),
});

export type CalendarSource = z.infer<typeof calendarSourceSchema>;

const DAY_MS = 86_400_000;

/** The inclusive date range of one library holiday: its local start date plus whole days it lasts (at least one). */
function range(h: HolidaysTypes.Holiday): { start_date: string; end_date: string } {
  const start = h.date.slice(0, 10);
  // Rounded: a day across a DST change is 23 or 25 hours; a half day (from 14:00) still counts as that day.
  const days = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY_MS));
  return { start_date: start, end_date: addDays(start, days - 1) };
}

/**
 * Checks country, region and language against the library's data; problems are
 * named by field. Also run on a source whose shape is otherwise invalid, so one
 * run lists every problem.
 */
export function checkAgainstLibrary(
  source: { country: string; region?: string; subregion?: string; language?: string },
  place: SourcePlace,
): ConfigIssue[] {
  const lib = new (holidaysLibrary())();
  const countries = lib.getCountries('en');
  if (!(source.country in countries)) {
    return [
      {
        path: sourcePath(place, 'calendar', ['country']),
        message: `unknown country "${source.country}" (ISO 3166-1 alpha-2 code, e.g. DE, FR, US)`,
      },
    ];
  }
  const issues: ConfigIssue[] = [];
  if (source.region !== undefined) {
    const regions = Object.keys(lib.getStates(source.country) ?? {});
    if (!regions.includes(source.region)) {
      issues.push({
        path: sourcePath(place, 'calendar', ['region']),
        message:
          regions.length === 0
            ? `country ${source.country} has no regions; leave region out`
            : `unknown region "${source.region}" of ${source.country} (regions: ${regions.join(', ')})`,
      });
    }
  }
  if (source.subregion !== undefined && issues.length === 0) issues.push(...checkSubregion(lib, source, place));
  if (source.language !== undefined) {
    // Against the country alone when the region is unknown, so both problems are listed.
    const languages = new (holidaysLibrary())(
      source.country,
      issues.length === 0 ? (source.region ?? '') : '',
    ).getLanguages();
    if (!languages.includes(source.language)) {
      issues.push({
        path: sourcePath(place, 'calendar', ['language']),
        message: `no holiday names in "${source.language}" for ${source.country} (languages: ${languages.join(', ')})`,
      });
    }
  }
  return issues;
}

function checkSubregion(
  lib: Holidays,
  source: { country: string; region?: string; subregion?: string },
  place: SourcePlace,
): ConfigIssue[] {
  const path = sourcePath(place, 'calendar', ['subregion']);
  if (source.region === undefined) return [{ path, message: 'needs a region' }];
  const known = Object.keys(lib.getRegions(source.country, source.region) ?? {});
  if (known.includes(source.subregion!)) return [];
  const where = `${source.country}-${source.region}`;
  return [
    {
      path,
      message:
        known.length === 0
          ? `${where} has no subregions; leave subregion out`
          : `unknown subregion "${source.subregion}" of ${where} (subregions: ${known.join(', ')})`,
    },
  ];
}

export function calendarLabel(source: { country: string; region?: string; subregion?: string }): string {
  return [source.country, source.region, source.subregion].filter(Boolean).join('-');
}

/**
 * Expands one validated calendar source. Exclusions and renames that match no
 * holiday are reported: a typo there would otherwise silently keep a holiday.
 */
export function expandCalendar(
  source: CalendarSource,
  place: SourcePlace,
): { entries: ValidatedEntry<HolidayEntry>[]; issues: ConfigIssue[]; warnings: string[] } {
  const issues = checkAgainstLibrary(source, place);
  if (issues.length > 0) return { entries: [], issues, warnings: [] };
  const lib = new (holidaysLibrary())(source.country, source.region ?? '', source.subregion ?? '', {
    types: [...source.types],
  });
  const language = source.language ?? lib.getLanguages()[0] ?? 'en';
  const prefix = slug(calendarLabel(source));
  const label = calendarLabel(source);
  const used = new Set<string>();
  const entries: ValidatedEntry<HolidayEntry>[] = [];
  const languages = lib.getLanguages();
  const native = languages[0] ?? 'en';
  for (const y of [...source.years].sort((a, b) => a - b)) {
    // Every call names its language: the library keeps the last one passed, so a bare
    // getHolidays(y) after getHolidays(y - 1, 'en') would answer in English.
    const english = new Map(lib.getHolidays(y, 'en').map((h) => [holidayId(h), h.name]));
    const keysIn = (lang: string) => yearKeys(prefix, y, lib.getHolidays(y, lang), english);
    const stable = keysIn(native);
    // The same rules in other languages: matched by date and rule, not by position.
    const named = new Map(lib.getHolidays(y, language).map((h) => [holidayId(h), h.name]));
    // Keys the same holiday got from older releases, which took names in the last language asked for.
    const older = languages.filter((l) => l !== native).map(keysIn);
    stable.forEach(({ h, key, holidaySlug, base }) => {
      const hit = (list: Iterable<string>) => [...list].find((k) => k === key || k === holidaySlug || k === base);
      const excluded = hit(source.exclude);
      if (excluded !== undefined) {
        used.add(excluded);
        return;
      }
      const renamed = hit(Object.keys(source.rename));
      if (renamed !== undefined) used.add(renamed);
      const name = renamed !== undefined ? source.rename[renamed]! : (named.get(holidayId(h)) ?? h.name);
      const ref: EntryRef = {
        file: place.file,
        list: 'calendar',
        index: place.index,
        single: place.single,
        key,
        origin: `calendar ${label} ${y}`,
      };
      const aliases = [...new Set(older.map((keys) => keys.get(holidayId(h))?.key))].filter(
        (k): k is string => k !== undefined && k !== key,
      );
      entries.push({
        ref,
        entry: { key, name: name.slice(0, 255), ...range(h) },
        ...(aliases.length ? { aliases } : {}),
      });
    });
  }
  source.exclude.forEach((k, i) => {
    if (!used.has(k))
      issues.push({
        path: sourcePath(place, 'calendar', ['exclude', i]),
        message: `"${k}" matches no holiday of ${label} in ${source.years.join(', ')}`,
      });
  });
  for (const k of Object.keys(source.rename)) {
    if (!used.has(k))
      issues.push({
        path: sourcePath(place, 'calendar', ['rename', k]),
        message: `"${k}" matches no holiday of ${label} in ${source.years.join(', ')}`,
      });
  }
  return { entries, issues, warnings: fewHolidays(lib, source, place) };
}

/** Fewer public holidays a year than this, and the library's data for the place is likely incomplete. */
const FEW_PUBLIC_HOLIDAYS = 7;

/**
 * A warning when the library knows few public holidays for the place (India: 6,
 * without Diwali or Holi), so a team does not take the list for complete.
 */
function fewHolidays(lib: Holidays, source: CalendarSource, place: SourcePlace): string[] {
  if (!source.types.includes('public')) return [];
  const year = Math.min(...source.years);
  const count = lib.getHolidays(year).filter((h) => h.type === 'public').length;
  if (count >= FEW_PUBLIC_HOLIDAYS) return [];
  const states = Object.keys(new (holidaysLibrary())().getStates(source.country) ?? {});
  const advice =
    source.region === undefined && states.length > 0
      ? `choose a region (${states.slice(0, 8).join(', ')}${states.length > 8 ? ', …' : ''}) or add the others`
      : 'add the others';
  return [
    `${sourcePath(place, 'calendar')}: date-holidays lists only ${count} public holidays for ${calendarLabel(source)} in ${year}; regional and religious holidays may be missing: ${advice} as holidays entries or an ics source`,
  ];
}
