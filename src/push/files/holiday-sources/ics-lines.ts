/**
 * Where each VEVENT and its properties sit in an iCalendar text, so problems
 * can name a line; ical.js keeps no positions. Folded lines (RFC 5545 §3.1: a
 * line starting with a space or tab continues the one before) count at the
 * line where the property starts. Property values are kept raw, before ical.js
 * normalizes them (it turns 20260230 into 2026-03-02).
 */

export interface IcsProperty {
  line: number;
  value: string;
}

export interface IcsEventLines {
  /** Line of BEGIN:VEVENT (1-based). */
  line: number;
  /** First occurrence of each property of the event itself (nested VALARMs left out), by upper-case name. */
  props: Map<string, IcsProperty>;
}

/** The top-level VEVENTs in document order: the order of getAllSubcomponents('vevent'). */
export function scanIcsEvents(text: string): IcsEventLines[] {
  const events: IcsEventLines[] = [];
  let current: IcsEventLines | undefined;
  let depth = 0;
  let last: IcsProperty | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    if (/^[ \t]/.test(raw)) {
      if (last) last.value += raw.slice(1);
      return;
    }
    last = undefined;
    const upper = raw.toUpperCase();
    if (upper === 'BEGIN:VEVENT' && depth === 0) {
      current = { line: i + 1, props: new Map() };
      events.push(current);
      return;
    }
    if (current && upper.startsWith('BEGIN:')) depth += 1;
    else if (current && upper.startsWith('END:')) {
      if (depth === 0) current = undefined;
      else depth -= 1;
    } else if (current && depth === 0) {
      const colon = raw.indexOf(':');
      const name = raw
        .slice(0, colon < 0 ? raw.length : colon)
        .split(';')[0]!
        .toUpperCase();
      if (!current.props.has(name)) {
        last = { line: i + 1, value: colon < 0 ? '' : raw.slice(colon + 1) };
        current.props.set(name, last);
      }
    }
  });
  return events;
}

/** The first line (1-based) of a buffer that is not valid UTF-8, or undefined when all of it is. */
export function firstNonUtf8Line(bytes: Buffer): number | undefined {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end < 0 ? bytes.length : end;
    try {
      decoder.decode(bytes.subarray(start, stop));
    } catch {
      return line;
    }
    if (end < 0) return undefined;
    start = end + 1;
  }
  return undefined;
}
