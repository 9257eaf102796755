import type { HolidaysTypes } from 'date-holidays';
import { slug } from './slug.js';

/** A holiday's identity across languages: its date and the library's rule. */
export const holidayId = (h: HolidaysTypes.Holiday) => `${h.date}\u0000${h.rule}`;

interface KeyedHoliday {
  h: HolidaysTypes.Holiday;
  key: string;
  holidaySlug: string;
  base: string;
}

/**
 * Keys of one year's holidays from their names as given; two holidays with the
 * same slug get their date appended. Indexed by date and rule, which no language changes.
 */
export function yearKeys(
  prefix: string,
  year: number,
  holidays: HolidaysTypes.Holiday[],
  english: Map<string, string>,
): Map<string, KeyedHoliday> {
  // A name in a script slug() drops (Japanese, Korean) falls back to English, then to the date.
  const slugs = holidays.map((h) => slug(h.name) || slug(english.get(holidayId(h)) ?? '') || h.date.slice(5, 10));
  const out = new Map<string, KeyedHoliday>();
  holidays.forEach((h, i) => {
    const base = slugs[i]!;
    const shared = slugs.filter((s) => s === base).length > 1;
    const holidaySlug = shared ? `${base}-${h.date.slice(5, 10)}` : base;
    out.set(holidayId(h), { h, key: `${prefix}-${year}-${holidaySlug}`.slice(0, 100), holidaySlug, base });
  });
  return out;
}
