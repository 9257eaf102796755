import type { HolidayStatus, StoredHoliday } from './hours-model.js';

/** Today's date (`YYYY-MM-DD`) in an IANA timezone at the instant `now`. */
export function todayIn(timeZone: string, now: Date): string {
  // en-CA formats as YYYY-MM-DD; formatToParts keeps it independent of that detail.
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(now)
    .reduce<Record<string, string>>((acc, p) => {
      acc[p.type] = p.value;
      return acc;
    }, {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** Read-only status derived from today's date in the organization's timezone (API document, Holiday). */
export function holidayStatus(h: Pick<StoredHoliday, 'start_date' | 'end_date'>, today: string): HolidayStatus {
  if (today < h.start_date) return 'upcoming';
  if (today > h.end_date) return 'past';
  return 'active';
}

const RANK: Record<HolidayStatus, number> = { active: 0, upcoming: 1, past: 2 };

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * GET /holidays order (API document, Endpoints): active first, then upcoming by
 * start date, then past with the most recent first. Sandbox choices: active ones
 * by start date ascending; "most recent" past = latest end_date first; ties by
 * start date (same direction), then id.
 */
export function orderHolidays(holidays: StoredHoliday[], today: string): Array<[StoredHoliday, HolidayStatus]> {
  const withStatus = holidays.map((h) => [h, holidayStatus(h, today)] as [StoredHoliday, HolidayStatus]);
  return withStatus.sort(([a, sa], [b, sb]) => {
    if (sa !== sb) return RANK[sa] - RANK[sb];
    if (sa === 'past') {
      return compareText(b.end_date, a.end_date) || compareText(b.start_date, a.start_date) || compareText(a.id, b.id);
    }
    return compareText(a.start_date, b.start_date) || compareText(a.end_date, b.end_date) || compareText(a.id, b.id);
  });
}
