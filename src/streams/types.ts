import type { ApiObject, HelpdeskApi } from '../api/types.js';
import type { Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { TableName } from '../output/tables.js';

/**
 * A change to committed state, generic so that the commit protocol needs no
 * knowledge of streams: `scope` groups keys (e.g. `fp:conversations`), `value`
 * null deletes the key. Changes are staged and applied only once every row
 * emitted before them is durable in the sink (design.md §2).
 */
export interface StateChange {
  scope: string;
  key: string;
  value: string | null;
}

/** Read-only view of committed state that streams consult (they never touch SQLite). */
export interface StateReader {
  get(scope: string, key: string): string | undefined;
  /** Every key of a scope, in no particular order. */
  keys(scope: string): Iterable<string>;
}

export type Emit =
  /** A record for a table: the API object (or a stream-built object) to normalize. */
  | { kind: 'row'; table: TableName; record: ApiObject; deleted?: boolean; changes?: StateChange[] }
  /** State changes that belong to no row (e.g. "messages of X fetched, nothing changed"). */
  | { kind: 'state'; changes: StateChange[] }
  /** Something the run summary must show (e.g. users skipped: token lacks users:read). */
  | { kind: 'warning'; code: string; message: string }
  /** A safe point: everything emitted so far may be committed now. */
  | { kind: 'checkpoint' };

export interface StreamContext {
  api: HelpdeskApi;
  state: StateReader;
  config: Config;
  /** True when this stream was named in --full-refresh: ignore fingerprints and positions. */
  fullRefresh: boolean;
  now: () => Date;
  log: Logger;
  signal: AbortSignal;
}

export interface Stream {
  name: StreamName;
  /** Tables this stream writes. */
  tables: readonly TableName[];
  /** Streams whose committed state this one reads (ordering hint for the runner). */
  after?: readonly StreamName[];
  run(ctx: StreamContext): AsyncIterable<Emit>;
}
