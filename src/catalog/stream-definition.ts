import type { ColumnSpec } from './columns.js';

/**
 * One stream of the catalog, declared once in src/catalog/streams/<name>.ts and
 * registered in catalog.ts. Everything that lists streams or tables (the config's
 * stream names, the output tables and their columns, the state scopes, `check`,
 * `verify`, `state show`, the dbt export, the docs) reads these declarations; the
 * runnable part (src/streams/registry.ts) builds each stream's `run` and probe from
 * its `read`. Every field is required, so a stream that forgets a part does not compile.
 *
 * Pure data: this folder imports nothing but itself, so config and output can read it.
 */
export interface StreamDefinition {
  /** The name in `streams:`, `--streams`, `--full-refresh`, `state show|reset --stream`. */
  name: string;
  /** What the stream reads and how it runs. */
  read: StreamRead;
  /** The output tables it writes, in file order of the catalog. */
  tables: readonly TableDefinition[];
  /** What it keeps in the state's kv_state between runs. */
  state: StreamState;
  /** What `helpdesk-sync check` does to prove the token may read it. */
  check: StreamCheck;
  /** What a 403 on its endpoint does to a sync (skips the stream, or fails it) and to `check` and `verify`. */
  forbidden: Forbidden;
  /** What `helpdesk-sync verify` holds against the state for it. */
  verify: VerifyMode;
  /** Its row of the stream table in docs/streams.md (a test holds the page to it). */
  docs: { readFrom: string; incremental: string };
}

/** An endpoint of the API document as a stream reads it. */
export interface Endpoint {
  method: 'GET';
  /** Path under the base URL; `{inbox_id}` is filled for each inbox. */
  path: string;
  /**
   * How its answer comes back (API document, Limits; Other operations):
   * `pages`: any list envelope (counting or simple paginator, or a plain array), read 100 a page;
   * `unpaginated`: one plain array, asked without per_page; `single`: one resource (`{data}`).
   */
  paginator: 'pages' | 'unpaginated' | 'single';
}

export type StreamRead =
  /** The whole list every run: what changed is written, what disappeared tombstoned (src/streams/full-refresh/). */
  | { kind: 'list'; endpoint: Endpoint }
  /** The same, one list per inbox (`{inbox_id}` in the path); each item carries the inbox_id it was listed under. */
  | { kind: 'per-inbox'; endpoint: Endpoint }
  /** The conversation list, read once a run for every stream of this kind (src/streams/conversations/). */
  | { kind: 'conversation-scan' }
  /** One request per inbox and day (src/streams/reports/). */
  | { kind: 'report-days'; endpoint: Endpoint };

export type ReadKind = StreamRead['kind'];

/**
 * The kv_state a stream owns. `scope` (or every scope under `prefix`, one per
 * inbox) is what `state show` counts, in `unit`; `also` names further scopes it
 * owns. `state reset --stream` deletes all of them.
 */
export type StreamState =
  | { scope: string; unit: string; also?: Readonly<Record<string, string>> }
  | { prefix: string; unit: string };

export type StreamCheck =
  /** Read the endpoint: its first item, or the whole answer when it is unpaginated (then counted in the state's unit). */
  | { probe: 'read'; note?: string }
  /** No request of its own: `detail` says what it rides on. */
  | { probe: 'none'; detail: string }
  /** Written by the runnable part (the conversation list, the reports' cost). */
  | { probe: 'custom' };

/**
 * `skip`: a token's kind or scope decides what it may read (API document,
 * Authentication rules 3, 5 and 7), so a 403 skips the stream with a warning
 * and the run goes on; `why` is the API document's reason, else the status
 * table's words. `fail`: a 403 fails the stream like any failure confined to it
 * (src/sync/stream-failure.ts): the other streams run, and the run ends `partial`.
 */
export type Forbidden = { effect: 'fail' } | { effect: 'skip'; why?: string };

/**
 * `listing`: the stream's list read again and compared with the state's keys and
 * hashes; `conversation-listing`: the conversation list against the state, and a
 * sample of rows field by field; `thread-sample`: the threads of that sample;
 * `output-only`: nothing of the API, only the committed files against the state.
 */
export type VerifyMode = 'listing' | 'conversation-listing' | 'thread-sample' | 'output-only';

export interface TableDefinition {
  name: string;
  primaryKey: readonly string[];
  /** In file order; the metadata columns (src/output/rows/metadata-columns.ts) follow them. */
  columns: readonly ColumnSpec[];
  /**
   * Embedded objects read for a column but kept elsewhere, so none of their other
   * fields lands in `_extra` (the contact embedded in a conversation is the contacts table's).
   */
  consumes?: readonly string[];
  description: string;
  /**
   * Where the state holds the keys of the table's live rows (what `verify --output`
   * compares the files with): the stream's `scope`, the per-conversation thread
   * maps, or one scope per inbox under the stream's `prefix`.
   */
  keys: 'scope' | 'thread' | 'per-inbox';
  dbt: {
    /** The resource of the API document its rows come from, in the column descriptions. */
    resource: string;
    /**
     * Source freshness on `_synced_at`: off for settings tables, which can go
     * weeks without a change (a run writes only what changed).
     */
    freshness: boolean;
  };
}

/** Declares a stream, keeping its literal names (the catalog derives the name types from them). */
export function defineStream<const S extends StreamDefinition>(definition: S): S {
  return definition;
}

/*
 * Business hours and holidays: "All ten of their operations are PAT only" (API
 * document, Other operations), so a partner-issued token gets 403 on the reads
 * too (Authentication rule 3).
 */
export const PAT_ONLY = 'its operations accept only a personal access token; a partner-issued token is refused';

/** How a full-refresh list stays incremental, in the docs' words. */
export const FULL_REFRESH = 'full refresh: changed rows, tombstones for ids that disappeared';

/** `GET /inboxes/{inbox_id}/tags`: how messages and docs name an endpoint. */
export function describeEndpoint(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.path}`;
}
