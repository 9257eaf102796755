import { validate as isValidCron } from 'node-cron';

interface Field {
  name: string;
  min: number;
  max: number;
  /** Names node-cron reads in this field (`jan`, `mon`), beside the numbers. */
  names?: string;
}

const SECOND: Field = { name: 'second', min: 0, max: 59 };
const FIVE: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: 'jan-dec' },
  // 0 and 7 are both Sunday.
  { name: 'day of week', min: 0, max: 7, names: 'sun-sat' },
];

const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** What is wrong with one comma-separated part of a field, when a number in it is out of range or a step is 0. */
function partProblem(part: string, field: Field): string | undefined {
  const match = /^(\*|\d+|\d+-\d+)(?:\/(\d+))?$/.exec(part);
  if (!match) return undefined;
  const [, range = '', step] = match;
  if (step !== undefined && Number(step) < 1) return `step "${step}" in "${part}" must be 1 or more`;
  for (const n of range === '*' ? [] : range.split('-')) {
    if (Number(n) < field.min || Number(n) > field.max) return `"${n}" is out of range ${field.min}-${field.max}`;
  }
  return undefined;
}

/** Why one field is refused, in words that name what it takes. */
function fieldProblem(text: string, field: Field): string {
  for (const part of text.split(',')) {
    const problem = partProblem(part, field);
    if (problem) return problem;
  }
  const names = field.names ? ` or ${field.names}` : '';
  return `"${text}" is not valid here (expected ${field.min}-${field.max}${names}, a range a-b, a step */n or a list a,b)`;
}

/**
 * Why node-cron refuses a schedule, said by field (`field 2 (hour) "25" is out
 * of range 0-23`), or undefined when it accepts it. node-cron decides what is
 * valid (its `validate` is the one rule): this only finds which field it
 * refuses, by asking it about each field alone, every other field `*`.
 */
export function cronProblem(expression: string): string | undefined {
  if (isValidCron(expression)) return undefined;
  const text = expression.trim().replace(/\s+/g, ' ');
  if (text.startsWith('@')) return `unknown shorthand "${text}" (known: ${NICKNAMES.join(', ')})`;
  const parts = text === '' ? [] : text.split(' ');
  if (parts.length !== 5 && parts.length !== 6) {
    return `expected 5 fields (minute hour day-of-month month day-of-week) or 6 (a second first), got ${parts.length}`;
  }
  const fields = parts.length === 6 ? [SECOND, ...FIVE] : FIVE;
  for (const [i, part] of parts.entries()) {
    const alone = parts.map((p, j) => (j === i ? p : '*')).join(' ');
    if (!isValidCron(alone)) return `field ${i + 1} (${fields[i]!.name}) ${fieldProblem(part, fields[i]!)}`;
  }
  return 'not a valid cron expression: each field is valid alone, but not together';
}
