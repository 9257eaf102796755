import type { RequestStats } from '../api/index.js';
import type { StreamName } from '../config/schema.js';
import type { TableName } from '../output/tables.js';
import type { CompletenessFigure } from '../streams/completeness.js';
import type { BackfillProgress } from '../streams/types.js';

export interface TableCounts {
  /** Rows written to the table's files, tombstones included. */
  rows: number;
  tombstones: number;
  rejected: number;
}

/** The final summary of one sync run: printed to stdout, logged once, stored with the manifest. */
export interface SyncSummary {
  run_id: string;
  /**
   * How the run ended (docs/operations.md, "Exit codes"):
   * - `succeeded`: every selected stream ran to its end (a stream skipped as its declaration allows included);
   * - `partial`: the run committed what it could, but some part failed; today a stream (`failed_streams`).
   *   The next run retries it. Exit 3. It wins over `interrupted` when both happened;
   * - `interrupted`: SIGINT/SIGTERM arrived, or the run's deadline; what was complete is committed, the next run resumes.
   */
  status: 'succeeded' | 'partial' | 'interrupted';
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** The stream names this run selected, and those run with --full-refresh. */
  streams: StreamName[];
  full_refresh: StreamName[];
  tables: Record<TableName, TableCounts>;
  /**
   * Strings written with NUL or a lone surrogate replaced by U+FFFD (docs/output.md,
   * "Text"), all tables together.
   */
  sanitized_strings: number;
  /**
   * Values sent as another JSON type and read losslessly into a typed column (`"1001"` in an
   * integer column, `0`/`1` in a boolean one; docs/output.md, "Typed columns"), all tables together.
   */
  coerced_values: number;
  requests: RequestStats;
  warnings: Array<{ code: string; message: string }>;
  skipped_streams: Array<{ stream: StreamName; reason: string }>;
  /**
   * Streams that failed while the run went on (docs/streams.md, "When a stream fails"): one entry
   * per stream name the failed implementation served in this run (the conversation scan: conversations,
   * contacts, messages), with the error's code and its token-free message. What such a stream committed
   * before the failure is kept; it has no completeness figure; the next run retries it.
   */
  failed_streams: Array<{ stream: StreamName; code: string; message: string }>;
  conversations_scanned: number;
  conversations_changed: number;
  /** Listings of a conversation already listed in this run: skipped, so its rows are written once per run. */
  conversations_relisted: number;
  /** Thread requests (GET /conversation/{id}/messages) made. */
  messages_fetched: number;
  /**
   * Conversations or threads the API answered 403 for (the token cannot see
   * that inbox): skipped with a warning, never tombstoned, asked again next run.
   */
  forbidden_skipped: number;
  /**
   * Threads, conversation list pages, report days and lists whose body stayed unreadable after
   * the retries (cut short, not JSON, or JSON of the wrong shape): skipped with a warning, never
   * tombstoned, asked again next run.
   */
  unreadable_skipped: number;
  /** Ranges of the conversation listing re-read because its pages showed them missing (a page size changed mid-scan, a short page). */
  listing_repairs: number;
  /** Conversations those re-reads found. */
  listing_recovered: number;
  /**
   * Per stream that finished, what the API says exists against what the state
   * holds as live after the run, the difference explained where the run knows
   * why (docs/streams.md, "Completeness"). A stream that did not finish
   * (interrupted, skipped, failed) has no figure.
   */
  completeness: CompletenessFigure[];
  /** Where a recent-first backfill of the conversations stands, when one ran in this run. */
  backfill?: BackfillProgress;
}

export type StreamStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'interrupted';

/** Progress of one stream implementation (the conversation scan serves three names: one line). */
export interface StreamProgress {
  /** Display name, e.g. `conversations+contacts+messages`. */
  stream: string;
  status: StreamStatus;
  /** Rows and tombstones written so far. */
  rows: number;
  /** Requests made while this stream ran (streams run one after another). */
  requests: number;
  /** Milliseconds this stream has been running (or ran). */
  elapsed_ms: number;
  /**
   * Requests the configured budget allowed in the rate windows this stream's time touched
   * (windows counted from the run's start): what its `requests` are a share of. Absent before it starts.
   */
  budget_requests?: number;
  /** The stream's estimate of requests still to make; undefined = unknown. */
  remaining_requests?: number;
}

export interface SyncProgress {
  run_id: string;
  elapsed_ms: number;
  /** The configured budget: source.rate_limit.requests_per_minute. */
  requests_per_minute: number;
  /** The server's rate window as the queue acts on it (configured, learned, or the documented 60 s). */
  rate_window_ms?: number;
  requests: number;
  rate_limited: number;
  /** Time requests were held back for rate budget, the wait going on now included. */
  waited_ms: number;
  /** A 429 pause going on now: milliseconds until requests start again (absent when none is). */
  paused_ms_left?: number;
  /**
   * Requests are held back for rate budget now (not by a 429): the share of the
   * window is spent and the run waits for the window's end. `left_ms`: about how
   * long, from when the window opened and its length; absent when not known.
   */
  waiting_for_window?: { left_ms?: number };
  /** 429s in a row going on now: milliseconds since the first of them (absent when none is). */
  rate_limited_for_ms?: number;
  streams: StreamProgress[];
  /** Where a recent-first backfill stands, once one started in this run. */
  backfill?: BackfillProgress;
}
