import type { RequestStats } from '../api/index.js';
import type { PlannedStream } from '../streams/registry.js';
import type { BackfillProgress } from '../streams/types.js';
import type { StreamProgress, StreamStatus, SyncProgress } from './sync-types.js';

interface Entry extends StreamProgress {
  startedMs?: number;
  finishedMs?: number;
  requestsAtStart: number;
}

/**
 * Per-stream counters for the progress display, fed by the runner. It also tells
 * when requests wait for the rate window: the queue's `waitedMs` counts the wait
 * going on now, so between two snapshots it grows with the clock while requests
 * are held back. The window opened when requests moved again after such a wait
 * (or at the run's start), and ends one window length later.
 */
export class ProgressTracker {
  readonly #entries = new Map<PlannedStream, Entry>();
  #current: Entry | undefined;
  #last: { t: number; waitedMs: number } | undefined;
  #waiting = false;
  #paused = false;
  #windowOpenedMs: number;
  /** The latest word of a recent-first backfill in this run. */
  backfill: BackfillProgress | undefined;

  constructor(
    plan: readonly PlannedStream[],
    private readonly runId: string,
    private readonly startedMs: number,
    private readonly requestsPerMinute: number,
    private readonly stats: () => RequestStats,
    /** The server's rate window as the queue acts on it; absent: no window wait is estimated. */
    private readonly rateWindowMs?: () => number,
  ) {
    this.#windowOpenedMs = startedMs;
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
    entry.budget_requests = this.#budgetBetween(entry.startedMs, nowMs, entry.requests);
  }

  #windowMs(): number {
    return this.rateWindowMs?.() ?? 60_000;
  }

  /**
   * What the configured budget allowed in the rate windows the span from `fromMs` to `toMs`
   * touched: its share per window (requests_per_minute scaled to the window) times those
   * windows. Not the span's length: a stream of three seconds may spend a whole window's share,
   * and that is within budget. Windows are counted from the run's start; the server's open at
   * the IP's first request and each next one at the first request after the last ended (API
   * document, Limits), so they start at or after those edges and a span may touch one window
   * more than counted, never two. The queue starts at most its share in a window, so `requests`
   * above the counted windows' budget are that one window more: it is counted, and the share
   * said is of the windows the stream really ran in. Requests above even that are not hidden.
   */
  #budgetBetween(fromMs: number, toMs: number, requests: number): number {
    const windowMs = this.#windowMs();
    const share = (this.requestsPerMinute * windowMs) / 60_000;
    const first = Math.floor(Math.max(0, fromMs - this.startedMs) / windowMs);
    const last = Math.floor(Math.max(0, toMs - this.startedMs) / windowMs);
    const windows = last - first + 1;
    return (requests > windows * share ? windows + 1 : windows) * share;
  }

  /** Whether requests are held back for rate budget now, not by a 429 pause (see the class comment). */
  #observeWaiting(nowMs: number, stats: RequestStats): boolean {
    const last = this.#last;
    if (last && nowMs - last.t < 200) return this.#waiting;
    this.#last = { t: nowMs, waitedMs: stats.waitedMs };
    const paused = (stats.rateLimitPauseLeftMs ?? 0) > 0;
    const wasPaused = this.#paused;
    this.#paused = paused;
    if (!last) return false;
    const held = stats.waitedMs - last.waitedMs;
    // The time held back just after a pause was the pause itself.
    const waiting = !paused && !wasPaused && held >= 0.8 * (nowMs - last.t);
    // Requests moving again after a wait or a 429's pause (its Retry-After is the window's end): a window opened.
    if ((this.#waiting && !waiting) || (wasPaused && !paused)) this.#windowOpenedMs = nowMs;
    this.#waiting = waiting;
    return waiting;
  }

  #windowWait(nowMs: number, stats: RequestStats): SyncProgress['waiting_for_window'] {
    if (!this.#observeWaiting(nowMs, stats)) return undefined;
    const windowMs = this.rateWindowMs?.();
    const left = windowMs === undefined ? 0 : this.#windowOpenedMs + windowMs - nowMs;
    return left > 0 ? { left_ms: left } : {};
  }

  snapshot(nowMs: number): SyncProgress {
    const stats = this.stats();
    const waitingForWindow = this.#windowWait(nowMs, stats);
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
      rate_window_ms: this.#windowMs(),
      requests: stats.requests,
      rate_limited: stats.rateLimited,
      waited_ms: stats.waitedMs,
      ...(stats.rateLimitPauseLeftMs ? { paused_ms_left: stats.rateLimitPauseLeftMs } : {}),
      ...(waitingForWindow ? { waiting_for_window: waitingForWindow } : {}),
      ...(stats.rateLimitedForMs ? { rate_limited_for_ms: stats.rateLimitedForMs } : {}),
      streams,
      ...(this.backfill ? { backfill: { ...this.backfill } } : {}),
    };
  }
}
