import type { Emit, StreamContext } from './types.js';

/** Warning code of a list (or an inbox's part of one) skipped for a body that stayed unreadable. */
export const LIST_UNREADABLE = 'LIST_UNREADABLE';

/**
 * The warning of a list whose body stayed unreadable after the API layer's
 * retries (cut short, or JSON of the wrong shape: see isUnreadable). The stream
 * skips what it belongs to for this run, writes no tombstone (absence from a
 * list not read proves nothing) and has no completeness figure; the next run
 * reads it again. Counted in the summary's `unreadable_skipped`.
 */
export function unreadableList(ctx: StreamContext, stream: string, what: string, error: unknown): Emit {
  ctx.metrics?.count('unreadable_skipped');
  const why = error instanceof Error ? error.message : String(error);
  const message =
    `${stream}: ${what} stayed unreadable after the retries (${why}); skipped this run, nothing is tombstoned, ` +
    'the next run reads it again';
  ctx.log.warn({ stream, code: LIST_UNREADABLE }, message);
  return { kind: 'warning', code: LIST_UNREADABLE, message };
}
