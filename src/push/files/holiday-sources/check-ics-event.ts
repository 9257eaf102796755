import type { ConfigIssue } from '../../../errors.js';
import { isRealDate } from '../files-schema.js';
import type { IcsEventLines } from './ics-lines.js';

/** YYYYMMDD at the start of a raw DATE or DATE-TIME value, when it is a real calendar date. */
function rawDate(value: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(value.trim());
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  return date !== undefined && isRealDate(date) ? date : undefined;
}

/**
 * The raw checks ical.js does not make (it rolls 20260230 over into March and
 * fails on a missing DTSTART), each naming the property's line.
 */
export function checkIcsEvent(lines: IcsEventLines | undefined, at: string): ConfigIssue[] {
  if (!lines) return [];
  const start = lines.props.get('DTSTART');
  if (!start) return [{ path: `${at}, VEVENT at line ${lines.line}`, message: 'DTSTART: required' }];
  const issues: ConfigIssue[] = [];
  const dates = new Map<string, string>();
  for (const name of ['DTSTART', 'DTEND', 'RECURRENCE-ID']) {
    const prop = lines.props.get(name);
    if (!prop) continue;
    const date = rawDate(prop.value);
    if (date === undefined) {
      issues.push({
        path: `${at}, ${name} (line ${prop.line})`,
        message: `not a real calendar date (${prop.value.trim()})`,
      });
    } else dates.set(name, `${date}${prop.value.trim().slice(8)}`);
  }
  const [from, to] = [dates.get('DTSTART'), dates.get('DTEND')];
  const end = lines.props.get('DTEND');
  if (from !== undefined && to !== undefined && end && to < from) {
    issues.push({ path: `${at}, DTEND (line ${end.line})`, message: `before DTSTART (${start.value.trim()})` });
  }
  return issues;
}
