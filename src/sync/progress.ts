import { formatDuration } from '../format-duration.js';
import { createLiveProgress, type LiveProgress, type LiveProgressOptions } from '../live-progress.js';
import type { StreamProgress, SyncProgress } from './sync-types.js';

export type ProgressReporterOptions = LiveProgressOptions;
export type ProgressReporter = LiveProgress<SyncProgress>;

/**
 * The share of the budget a stream used, e.g. `96%`: its requests against what the budget
 * allowed in the rate windows its time touched (`budget_requests`), so a short stream that
 * spent part of one window reads as that part, never as a minute's pace extrapolated. The
 * queue starts at most its share in a window, so this is at most 100 %; a reading above would
 * be the queue overspending, and is said as it is. `-` before the stream's first request.
 */
export function budgetShare(stream: StreamProgress): string {
  if (stream.requests === 0 || !stream.budget_requests) return '-';
  const share = stream.requests / stream.budget_requests;
  if (share < 0.005) return '<1%';
  return `${Math.round(share * 100)}%`;
}

/** The budget in its own terms: `300 per 60s window`. */
export function budgetWords(p: Pick<SyncProgress, 'requests_per_minute' | 'rate_window_ms'>): string {
  const windowMs = p.rate_window_ms ?? 60_000;
  const perWindow = Math.round((p.requests_per_minute * windowMs) / 60_000);
  return `${perWindow} per ${Math.max(1, Math.round(windowMs / 1000))}s window`;
}

/** Milliseconds every request is known to wait from now: a 429's pause, else the rate window's end. */
export function knownWaitMs(p: SyncProgress): number {
  return p.paused_ms_left ?? p.waiting_for_window?.left_ms ?? 0;
}

/**
 * Requests a minute the run can count on: the configured rate, or the run's own
 * pace when that is lower and the run has waited for budget (the server allows
 * less than the config asks, or others on the IP spend it).
 */
export function paceOf(p: SyncProgress): number {
  if (p.waited_ms <= 0 || p.elapsed_ms < 5000 || p.requests === 0) return p.requests_per_minute;
  return Math.min(p.requests_per_minute, (p.requests / p.elapsed_ms) * 60_000);
}

/**
 * Time a running stream still needs: the known wait, then its remaining requests
 * at the run's pace; `?` when the stream cannot tell; its status once it stopped.
 */
export function timeLeft(stream: StreamProgress, p: SyncProgress): string {
  if (stream.status !== 'running') return stream.status;
  if (stream.remaining_requests === undefined) return '?';
  return `~${formatDuration(knownWaitMs(p) + (stream.remaining_requests / paceOf(p)) * 60_000)}`;
}

/** What holds every request now, in words, or undefined when nothing does. */
export function waitLine(p: SyncProgress): string | undefined {
  // A server that keeps answering 429 is waited for: say for how long, so a slow run explains itself.
  const spell = p.rate_limited_for_ms ? ` (429s in a row for ${formatDuration(p.rate_limited_for_ms)})` : '';
  if (p.paused_ms_left) return `paused by a 429: resumes in ${formatDuration(p.paused_ms_left)}${spell}`;
  const w = p.waiting_for_window;
  if (!w) return undefined;
  return `waiting for the rate window${w.left_ms ? `: resumes in ~${formatDuration(w.left_ms)}` : ''}`;
}

function headerLine(p: SyncProgress): string {
  return (
    `sync ${p.run_id}  ${formatDuration(p.elapsed_ms)}  requests ${p.requests}` +
    `  429s ${p.rate_limited}  waited ${formatDuration(p.waited_ms)}`
  );
}

/**
 * The live block: a header, what holds the requests (when something does), one
 * line per stream under named columns, the backfill, and a legend for the two
 * columns their names do not explain. Every line fits 80 columns.
 */
export function progressLines(p: SyncProgress): string[] {
  const width = Math.max(6, ...p.streams.map((s) => s.stream.length));
  const wait = waitLine(p);
  const lines = [headerLine(p), ...(wait ? [`  ${wait}`] : [])];
  lines.push(
    `  ${'stream'.padEnd(width)}  ${'rows'.padStart(9)}  ${'requests'.padStart(8)}  ${'rate'.padStart(5)}  time left`,
  );
  for (const s of p.streams) {
    const started = s.status !== 'pending';
    lines.push(
      `  ${s.stream.padEnd(width)}  ${(started ? String(s.rows) : '-').padStart(9)}` +
        `  ${(started ? String(s.requests) : '-').padStart(8)}  ${budgetShare(s).padStart(5)}` +
        `  ${timeLeft(s, p)}`,
    );
  }
  const b = p.backfill;
  if (b) {
    const left =
      b.status === 'complete'
        ? 'complete'
        : b.eta_ms === undefined
          ? 'time left ?'
          : `~${formatDuration(b.eta_ms)} left`;
    lines.push(`  backfill: ${b.done} of ${b.total} conversations read, ${left}`);
  }
  lines.push(`  rate: its share of the budget (${budgetWords(p)}) in the windows it ran in`);
  lines.push("  time left: its requests left at the run's pace, known waits included");
  return lines;
}

/** The one line printed at a steady interval where there is no terminal to redraw. */
export function progressLine(p: SyncProgress): string {
  const running = p.streams.find((s) => s.status === 'running');
  const wait = waitLine(p);
  return (
    headerLine(p) +
    (running ? `; ${running.stream} rows ${running.rows}, time left ${timeLeft(running, p)}` : '') +
    (p.backfill ? `; backfill ${p.backfill.done}/${p.backfill.total}` : '') +
    (wait ? `; ${wait}` : '')
  );
}

/**
 * On a terminal: the progress block drawn in place. Otherwise: one progress line
 * and one structured `sync.progress` log event every `logEveryMs` (see createLiveProgress).
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  return createLiveProgress(options, {
    render: progressLines,
    line: progressLine,
    event: 'sync.progress',
    message: 'sync progress',
  });
}
