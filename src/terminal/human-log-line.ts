import { formatDuration } from '../format-duration.js';

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

/**
 * One pino record as the short line a person reads on a terminal: the level, the
 * stream it concerns, the message, and the few fields that complete it (a pause's
 * length, an error's code and message). The full record is for the JSON log.
 */
export function humanLogLine(record: Record<string, unknown>): string {
  const level = LEVELS[Number(record.level)] ?? 'log';
  const where = typeof record.stream === 'string' ? ` [${record.stream}]` : '';
  let line = `${level}${where}: ${String(record.msg ?? '')}`;
  if (typeof record.pause_ms === 'number') line += ` for ${formatDuration(record.pause_ms)}`;
  if (typeof record.delay_ms === 'number') line += `, again in ${formatDuration(record.delay_ms)}`;
  if (typeof record.code === 'string') line += ` (${record.code})`;
  const err = record.err as { message?: unknown; code?: unknown } | undefined;
  if (err && typeof err.message === 'string') {
    line += `: ${typeof err.code === 'string' ? `[${err.code}] ` : ''}${err.message}`;
  }
  return line;
}

/** The numeric pino level of a level name (`warn` → 40). */
export function levelValue(name: string): number {
  const values: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
  return values[name] ?? 30;
}
