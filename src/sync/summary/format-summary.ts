import { formatDuration } from '../../format-duration.js';
import { STREAM_SKIPPED } from '../../streams/skip-when-forbidden.js';
import { STREAM_FAILED } from '../stream-failure.js';
import type { SyncSummary } from '../sync-types.js';
import { backfillLine, completenessLine } from './format-completeness.js';
import { groupFailures } from './group-failures.js';

/**
 * The final summary as text for stdout (the JSON form goes to the log). `location`:
 * where the output is (the sink's description), said under the first line, since
 * the manifest's key is relative to it.
 */
export function formatSummary(summary: SyncSummary, manifestKey?: string, location?: string): string {
  const lines = [
    `sync ${summary.run_id} ${summary.status} in ${formatDuration(summary.duration_ms)}` +
      (manifestKey ? ` (manifest ${manifestKey})` : ''),
  ];
  if (location) lines.push(`  output in ${location}`);
  // The summary's `rows` counts every line of the table's files, tombstones included;
  // the display splits them so "changed" and "deleted" read at a glance.
  const tables = Object.entries(summary.tables).filter(([, c]) => c.rows + c.tombstones + c.rejected > 0);
  if (tables.length === 0) lines.push('  no rows written: nothing changed');
  else {
    const width = Math.max(5, ...tables.map(([t]) => t.length));
    lines.push(
      `  ${'table'.padEnd(width)}  ${'changed'.padStart(9)}  ${'tombstones'.padStart(10)}  ${'rejected'.padStart(8)}`,
    );
    for (const [table, c] of tables) {
      lines.push(
        `  ${table.padEnd(width)}  ${String(c.rows - c.tombstones).padStart(9)}  ${String(c.tombstones).padStart(10)}  ${String(c.rejected).padStart(8)}`,
      );
    }
  }
  if (summary.sanitized_strings > 0) {
    lines.push(`  text sanitized: ${summary.sanitized_strings} strings had NUL or a lone surrogate, written as U+FFFD`);
  }
  if (summary.coerced_values > 0) {
    lines.push(
      `  values coerced: ${summary.coerced_values} numbers or booleans sent as strings (or 0/1), read exactly`,
    );
  }
  const r = summary.requests;
  lines.push(
    `  requests ${r.requests} (429s ${r.rateLimited}${r.rateLimitProbes ? `, ${r.rateLimitProbes} of them probes` : ''}, retries ${r.retries}, ${waitedWords(r)})`,
  );
  if (summary.streams.some((s) => s === 'conversations' || s === 'contacts' || s === 'messages')) {
    // Said in the table's own terms: conversation rows written (as in the table above) and
    // threads fetched, which differ (a thread retried after a 403, a messages-only run).
    const conversations = summary.tables.conversations;
    const written = conversations ? conversations.rows - conversations.tombstones : 0;
    lines.push(
      `  conversations listed ${summary.conversations_scanned}: ${written} new or changed (rows written),` +
        ` threads fetched ${summary.messages_fetched}` +
        (summary.forbidden_skipped > 0 ? `, skipped for 403 ${summary.forbidden_skipped}` : ''),
    );
    if (summary.listing_repairs > 0) {
      lines.push(
        `  listing repaired: ${summary.listing_repairs} range(s) its pages showed missing re-read,` +
          ` ${summary.listing_recovered} conversations found there`,
      );
    }
  }
  if (summary.unreadable_skipped > 0) {
    lines.push(
      `  unreadable answers: ${summary.unreadable_skipped} skipped (threads, pages, report days or lists whose body` +
        ' stayed cut short or of the wrong shape), asked again next run',
    );
  }
  lines.push(completenessLine(summary));
  const backfill = backfillLine(summary);
  if (backfill) lines.push(backfill);
  for (const s of summary.skipped_streams) lines.push(`  skipped ${s.stream}: ${s.reason}`);
  for (const w of summary.warnings) {
    // Said once each, by their own lines (above and below).
    if (w.code !== STREAM_SKIPPED && w.code !== STREAM_FAILED) lines.push(`  warning ${w.code}: ${w.message}`);
  }
  lines.push(...failedLines(summary));
  if (summary.status === 'interrupted')
    lines.push('  interrupted: what was complete is committed; the next run resumes');
  if (summary.status === 'partial') {
    const why = [
      ...(summary.failed_streams.length > 0 ? ['some part failed'] : []),
      ...(summary.completeness.some((f) => f.unexplained > 0) ? ['something is missing for no known reason'] : []),
    ].join(' and ');
    lines.push(`  partial: the run committed what it could, but ${why} (above); the next run retries it`);
  }
  return lines.join('\n');
}

/**
 * The time waited for rate budget and the part of it that 429 pauses took. The queue counts a
 * pause whole when the 429 asks for it (`rateLimitPausedMs`, less a pause cut short), but the
 * wait only as it passes (`waitedMs`): a run that ends inside a pause (stopped, out of time) has
 * counted a pause it never waited out. What passed of the pauses is what was asked less what was
 * left when the run ended (`rateLimitPauseLeftMs`), said as a part of the wait when it is one;
 * when it is longer than the wait (a pause passed while no request waited, or a summary that
 * does not say what was left) the two are said apart, as what they are, never one forced into
 * the other. What was left is said apart too.
 */
export function waitedWords(r: SyncSummary['requests']): string {
  const asked = r.rateLimitPausedMs ?? 0;
  const left = r.rateLimitPauseLeftMs;
  const waited = `waited for rate budget ${formatDuration(r.waitedMs)}`;
  const rest = left ? `; a 429 pause had ${formatDuration(left)} left when the run ended` : '';
  if (asked === 0) return waited + rest;
  if (left === undefined) {
    return asked <= r.waitedMs
      ? `${waited}, ${formatDuration(asked)} of it paused by 429s`
      : `${waited}; 429s asked for pauses of ${formatDuration(asked)}`;
  }
  const passed = Math.max(0, asked - left);
  if (passed === 0) return waited + rest;
  return passed <= r.waitedMs
    ? `${waited}, ${formatDuration(passed)} of it paused by 429s${rest}`
    : `${waited}; 429 pauses lasted ${formatDuration(passed)}, not all of it with a request waiting${rest}`;
}

/** One line per failure of the run's `failed_streams`, with the error's code and message. */
function failedLines(summary: SyncSummary): string[] {
  return groupFailures(summary).map((f) => `  failed ${f.streams.join(', ')} (${f.code}): ${f.message}`);
}
