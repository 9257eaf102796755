import ICAL from 'ical.js';

/**
 * What Outlook and Exchange write for all-day events, read as RFC 5545 means it:
 *
 * - `X-MICROSOFT-CDO-ALLDAYEVENT:TRUE` on an event written as local midnight to
 *   midnight (`DTSTART;TZID=…:20261005T000000`) makes it a DATE event.
 * - A date-time UNTIL on an all-day series (RFC 5545 §3.3.10 wants a DATE
 *   there) is the UTC instant of the last occurrence's local midnight, e.g.
 *   `UNTIL=20271224T230000Z` for 25 December in Berlin. Local midnight lies
 *   within 14 hours of UTC, so the last date kept is that of UNTIL + 14 hours.
 */
export function readAllDayAsOutlookMeans(vevent: ICAL.Component): void {
  const flag = vevent.getFirstPropertyValue('x-microsoft-cdo-alldayevent');
  if (String(flag ?? '').toUpperCase() === 'TRUE') {
    for (const name of ['dtstart', 'dtend', 'recurrence-id']) {
      const prop = vevent.getFirstProperty(name);
      const value = prop?.getFirstValue();
      if (!prop || !(value instanceof ICAL.Time) || value.isDate) continue;
      if (value.hour !== 0 || value.minute !== 0 || value.second !== 0) continue;
      prop.removeParameter('tzid');
      prop.resetType('date');
      prop.setValue(ICAL.Time.fromData({ year: value.year, month: value.month, day: value.day, isDate: true }));
    }
  }
  const start = vevent.getFirstPropertyValue('dtstart');
  const rule = vevent.getFirstPropertyValue('rrule');
  if (!(start instanceof ICAL.Time) || !start.isDate || !(rule instanceof ICAL.Recur) || !rule.until) return;
  if (rule.until.isDate) return;
  const until = rule.until.clone();
  until.addDuration(ICAL.Duration.fromSeconds(14 * 3600));
  rule.until = ICAL.Time.fromData({ year: until.year, month: until.month, day: until.day, isDate: true });
}
