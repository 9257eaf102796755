import type { RequestStats } from '../api/types.js';
import type { PlannedStream } from '../streams/registry.js';
import type { BackfillProgress } from '../streams/types.js';
import type { StreamProgress, StreamStatus, SyncProgress } from './sync-types.js';

interface Entry extends StreamProgress {
  startedMs?: number;
  finishedMs?: number;
  requestsAtStart: number;
}

/** Per-stream counters for the progress display, fed by the runner. */
export class ProgressTracker {
  readonly #entries = new Map<PlannedStream, Entry>();
  #current: Entry | undefined;
  /** The latest word of a recent-first backfill in this run. */
  backfill: BackfillProgress | undefined;

  constructor(
    plan: readonly PlannedStream[],
    private readonly runId: string,
    private readonly startedMs: number,
    private readonly requestsPerMinute: number,
    private readonly stats: () => RequestStats,
  ) {
    for (const planned of plan) {
      this.#entries.set(planned, {
        stream: planned.names.join('+'),
        status: 'pending',
        rows: 0,
        requests: 0,
        elapsed_ms: 0,
        requestsAtStart: 0,
      });
    }
  }

  start(planned: PlannedStream, nowMs: number): void {
    const entry = this.#entries.get(planned) as Entry;
    entry.status = 'running';
    entry.startedMs = nowMs;
    entry.requestsAtStart = this.stats().requests;
    this.#current = entry;
  }

  rows(n: number): void {
    if (this.#current) this.#current.rows += n;
  }

  remaining(requests: number | undefined): void {
    if (this.#current) this.#current.remaining_requests = requests;
  }

  finish(planned: PlannedStream, status: StreamStatus, nowMs: number): void {
    const entry = this.#entries.get(planned) as Entry;
    this.#refresh(entry, nowMs);
    entry.status = status;
    entry.finishedMs = nowMs;
    if (status === 'done' || status === 'skipped') entry.remaining_requests = 0;
    if (this.#current === entry) this.#current = undefined;
  }

  #refresh(entry: Entry, nowMs: number): void {
    if (entry.startedMs === undefined || entry.finishedMs !== undefined) return;
    entry.requests = this.stats().requests - entry.requestsAtStart;
    entry.elapsed_ms = nowMs - entry.startedMs;
  }

  snapshot(nowMs: number): SyncProgress {
    const stats = this.stats();
    const streams: StreamProgress[] = [];
    for (const entry of this.#entries.values()) {
      this.#refresh(entry, nowMs);
      const { startedMs: _s, finishedMs: _f, requestsAtStart: _r, ...progress } = entry;
      streams.push(progress);
    }
    return {
      run_id: this.runId,
      elapsed_ms: nowMs - this.startedMs,
      requests_per_minute: this.requestsPerMinute,
      requests: stats.requests,
      rate_limited: stats.rateLimited,
      waited_ms: stats.waitedMs,
      ...(stats.rateLimitPauseLeftMs ? { paused_ms_left: stats.rateLimitPauseLeftMs } : {}),
      ...(stats.rateLimitedForMs ? { rate_limited_for_ms: stats.rateLimitedForMs } : {}),
      streams,
      ...(this.backfill ? { backfill: { ...this.backfill } } : {}),
    };
  }
}
