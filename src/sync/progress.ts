import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import { formatDuration } from './format-duration.js';
import type { StreamProgress, SyncProgress } from './sync-types.js';

export interface ProgressReporterOptions {
  /** Where the TTY display goes (stdout). */
  stream: { write(text: string): unknown; isTTY?: boolean };
  /** Where progress events go when `stream` is not a TTY. */
  logger: Logger;
  /** Force TTY mode on or off. @default stream.isTTY */
  tty?: boolean;
  /** Non-TTY: milliseconds between two progress log events. @default 10000 */
  logEveryMs?: number;
  /** Paces the non-TTY log events. @default systemClock */
  clock?: Pick<Clock, 'now'>;
}

export interface ProgressReporter {
  update(progress: SyncProgress): void;
  /** Stops drawing; safe to call more than once. */
  done(): void;
}

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
    `  429s ${p.rate_limited}  waited ${formatDuration(p.waited_ms)}`;
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
 * `sync.progress` log event at most every `logEveryMs`, so container logs show
 * the run is alive without one line per request.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const tty = options.tty ?? options.stream.isTTY === true;
  const clock = options.clock ?? systemClock;
  const logEveryMs = options.logEveryMs ?? 10_000;
  let drawn = 0;
  let lastLog: number | undefined;
  let finished = false;
  return {
    update(progress) {
      if (finished) return;
      if (tty) {
        const lines = progressLines(progress);
        const up = drawn > 0 ? `\x1b[${drawn}A` : '';
        options.stream.write(`${up}${lines.map((l) => `\x1b[2K${l}\n`).join('')}`);
        drawn = lines.length;
        return;
      }
      const t = clock.now();
      if (lastLog !== undefined && t - lastLog < logEveryMs) return;
      lastLog = t;
      options.logger.info({ event: 'sync.progress', progress }, 'sync progress');
    },
    done() {
      finished = true;
    },
  };
}
