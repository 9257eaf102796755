import { formatDuration } from '../format-duration.js';
import { createLiveProgress, type LiveProgress, type LiveProgressOptions } from '../live-progress.js';
import type { StreamProgress, SyncProgress } from './sync-types.js';

export type ProgressReporterOptions = LiveProgressOptions;
export type ProgressReporter = LiveProgress<SyncProgress>;

/** Share of the configured request rate a stream used while it ran, e.g. `96%`. */
export function budgetShare(stream: StreamProgress, requestsPerMinute: number): string {
  if (stream.elapsed_ms < 1000 || stream.requests === 0) return '-';
  const allowed = (stream.elapsed_ms / 60_000) * requestsPerMinute;
  return `${Math.round((stream.requests / allowed) * 100)}%`;
}

/** Time the stream's remaining requests take at the configured rate; `?` when the stream cannot tell. */
export function eta(stream: StreamProgress, requestsPerMinute: number): string {
  if (stream.status !== 'running') return stream.status;
  if (stream.remaining_requests === undefined) return 'eta ?';
  return `eta ~${formatDuration((stream.remaining_requests / requestsPerMinute) * 60_000)}`;
}

/** One display line per stream: rows, requests, share of the rate budget used, ETA. */
export function progressLines(p: SyncProgress): string[] {
  const width = Math.max(8, ...p.streams.map((s) => s.stream.length));
  const header =
    `sync ${p.run_id}  ${formatDuration(p.elapsed_ms)}  requests ${p.requests}` +
    `  429s ${p.rate_limited}  waited ${formatDuration(p.waited_ms)}` +
    (p.paused_ms_left ? `  paused by a 429: resumes in ${formatDuration(p.paused_ms_left)}` : '') +
    // A server that keeps answering 429 is waited for: say for how long, so a slow run explains itself.
    (p.rate_limited_for_ms ? `  (429s in a row for ${formatDuration(p.rate_limited_for_ms)})` : '');
  const lines = p.streams.map((s) => {
    const rows = `rows ${s.rows}`.padEnd(14);
    const requests = `req ${s.requests}`.padEnd(10);
    const budget = `budget ${budgetShare(s, p.requests_per_minute)}`.padEnd(12);
    return `  ${s.stream.padEnd(width)}  ${rows}${requests}${budget}${eta(s, p.requests_per_minute)}`;
  });
  const b = p.backfill;
  if (b) {
    const left =
      b.status === 'complete' ? 'complete' : b.eta_ms === undefined ? 'eta ?' : `eta ~${formatDuration(b.eta_ms)}`;
    lines.push(`  ${'backfill'.padEnd(width)}  ${b.done} of ${b.total} conversations read  ${left}`);
  }
  return [header, ...lines];
}

/**
 * On a TTY: the progress lines rewritten in place. Otherwise: a structured
 * `sync.progress` log event at most every `logEveryMs` (see createLiveProgress).
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  return createLiveProgress(options, { render: progressLines, event: 'sync.progress', message: 'sync progress' });
}
