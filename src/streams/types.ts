import type { ApiObject, HelpdeskApi } from '../api/index.js';
import type { Clock } from '../clock.js';
import type { StreamName } from '../config/schema.js';
import type { StateChange, StateReader, StateValue } from '../kv-state.js';
import type { Logger } from '../log.js';
import type { TableName } from '../output/tables.js';
import type { ScratchSpace } from '../scratch-space.js';
import type { CompletenessFigure } from './completeness.js';

export type { StateChange, StateReader, StateValue };

export type Emit =
  /** A record for a table: the API object (or a stream-built object) to normalize. */
  | { kind: 'row'; table: TableName; record: ApiObject; deleted?: boolean; changes?: StateChange[] }
  /** State changes that belong to no row (e.g. "messages of X fetched, nothing changed"). */
  | { kind: 'state'; changes: StateChange[] }
  /** Something the run summary must show (e.g. users skipped: token lacks users:read). */
  | { kind: 'warning'; code: string; message: string }
  /**
   * Rows that belong together (one conversation's thread): the runner writes
   * them all, then stages `changes`, and never checkpoints in between.
   */
  | { kind: 'batch'; rows: EmittedRow[]; changes?: StateChange[] }
  /** A safe point: everything emitted so far may be committed now. */
  | { kind: 'checkpoint' }
  /** A stream's completeness figure, measured after its last commit (docs/streams.md, "Completeness"). */
  | { kind: 'completeness'; figure: CompletenessFigure };

/** One row of a `batch` emit. Tombstones hold only the primary key, with `deleted: true`. */
export interface EmittedRow {
  table: TableName;
  record: ApiObject;
  deleted?: boolean;
}

/** Counters of the run summary that only a stream can know. */
export type StreamCounter =
  | 'conversations_scanned'
  | 'conversations_changed'
  | 'messages_fetched'
  /** Listings of a conversation already listed in this run (overlapping or shifted pages), each skipped. */
  | 'conversations_relisted'
  /** Conversations or threads skipped because the API answered 403 (retried next run). */
  | 'forbidden_skipped'
  /** Threads, list pages, report days and lists skipped because their body stayed unreadable (retried next run). */
  | 'unreadable_skipped'
  /** Ranges of the conversation listing re-read because its pages showed them missing. */
  | 'listing_repairs'
  /** Conversations found only by those re-reads. */
  | 'listing_recovered';

/** Progress of a recent-first backfill (docs/streams.md, "Recent-first first sync"). */
export interface BackfillProgress {
  /** `running`: older conversations are still to be read; `complete`: this run read the last page. */
  status: 'running' | 'complete';
  /** Conversations the backfill has read so far (its position in the oldest-first list). */
  done: number;
  /** What there is to read: the listing's meta.total. */
  total: number;
  /** Milliseconds left at this run's pace; absent until this run has read a page of the backfill. */
  eta_ms?: number;
}

/** How a stream tells the runner what it did and what is left (summary and progress display). */
export interface StreamMetrics {
  count(counter: StreamCounter, n?: number): void;
  /** Best estimate of the requests this stream still has to make; undefined = unknown. */
  remaining(requests: number | undefined): void;
  /** Where a recent-first backfill stands. */
  backfill?(progress: BackfillProgress): void;
}

/**
 * What one stream is handed for one run. Its settings are not here: a stream
 * that needs some (the conversation scan, the reports) is built with its own
 * (src/streams/stream-settings.ts), never the whole config.
 */
export interface StreamContext {
  api: HelpdeskApi;
  state: StateReader;
  /** True when this stream was named in --full-refresh: ignore fingerprints and positions. */
  fullRefresh: boolean;
  /** Time as the run reads it (reports: which day is today). */
  clock: Pick<Clock, 'now'>;
  log: Logger;
  signal: AbortSignal;
  /**
   * Stream names selected for this run. A stream serving several names (the
   * conversation scan serves conversations, contacts and messages) writes only
   * the tables of the selected ones. Absent = every name the stream serves.
   */
  selected?: ReadonlySet<StreamName>;
  /** Per-name --full-refresh, for streams serving several names. Absent = `fullRefresh` for all. */
  isFullRefresh?(name: StreamName): boolean;
  metrics?: StreamMetrics;
  /**
   * Where a stream keeps bookkeeping that grows with the account (one key per
   * conversation), off the JS heap. Absent = in memory (tests, small runs).
   */
  scratch?: ScratchSpace;
}

/** What a stream's check probe is given (`helpdesk-sync check`). */
export interface ProbeContext {
  api: HelpdeskApi;
  /** The inboxes GET /inboxes listed, for the streams read per inbox. */
  inboxIds: readonly string[];
  /** Today, UTC, YYYY-MM-DD. */
  today: string;
}

/** A probe's detail, or a warning: a sync runs, but not as the config may intend. */
export type ProbeResult = string | { warn: string };

/**
 * A runnable stream, built from its declaration (src/catalog/streams/) by the
 * registry. One implementation may serve several declared names (the
 * conversation scan); one run runs it once.
 */
export interface Stream {
  name: StreamName;
  /** Every stream name this implementation serves (default: just `name`). */
  serves?: readonly StreamName[];
  run(ctx: StreamContext): AsyncIterable<Emit>;
  /** The check probe, for a stream declared with `check: { probe: 'custom' }`. */
  probe?(ctx: ProbeContext): Promise<ProbeResult>;
}
