import type { OutputSession, OutputStats } from '../../../src/commit/output-session.js';
import { recordKey } from '../../../src/output/rows/record-key.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import type { StateChange, StateReader, StateValue } from '../../../src/streams/types.js';

export interface WrittenRow {
  runId: string;
  table: TableName;
  record: Record<string, unknown>;
  deleted: boolean;
}

/**
 * What survives between runs: committed rows and kv_state, as the real state
 * database and sink would hold them after each checkpoint's transaction.
 */
export class FakeStore {
  readonly state = new Map<string, Map<string, StateValue>>();
  readonly committed: WrittenRow[] = [];

  /** Scopes some reader loaded whole (get/keys), for tests of what a run keeps in memory. */
  readonly snapshotted = new Set<string>();

  /**
   * A reader with the real one's semantics: `get`/`keys` read a snapshot of
   * committed state, per scope, taken on first read; `lookup`, `scanKeys` and
   * `countKeys` read as committed now. `withLookup: false` gives a reader
   * without these optional methods.
   */
  reader(options: { withLookup?: boolean } = {}): StateReader {
    const snapshots = new Map<string, Map<string, StateValue>>();
    const scope = (name: string) => {
      let snap = snapshots.get(name);
      if (!snap) {
        this.snapshotted.add(name);
        snap = new Map(this.state.get(name) ?? []);
        snapshots.set(name, snap);
      }
      return snap;
    };
    const reader: StateReader = { get: (s, k) => scope(s).get(k), keys: (s) => scope(s).keys() };
    if (options.withLookup !== false) {
      reader.lookup = (s, k) => this.state.get(s)?.get(k);
      reader.scanKeys = (s) => [...(this.state.get(s)?.keys() ?? [])].sort();
      reader.countKeys = (s) => this.state.get(s)?.size ?? 0;
    }
    return reader;
  }

  apply(changes: StateChange[]): void {
    for (const { scope, key, value } of changes) {
      const map = this.state.get(scope) ?? new Map<string, StateValue>();
      this.state.set(scope, map);
      if (value === null) map.delete(key);
      else map.set(key, value);
    }
  }

  rowsOf(runId: string, table?: TableName): WrittenRow[] {
    return this.committed.filter((r) => r.runId === runId && (table === undefined || r.table === table));
  }
}

const zero = () => Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;

/** An OutputSession that records rows and applies staged state at each checkpoint, all in memory. */
export class FakeOutput implements OutputSession {
  readonly pending: WrittenRow[] = [];
  staged: StateChange[] = [];
  checkpoints = 0;
  /** Rows written between two checkpoints, per checkpoint (to check where checkpoints fall). */
  readonly checkpointSizes: number[] = [];
  /** Optional hook run inside writeRow (e.g. to abort mid-run). */
  onWrite?: (row: WrittenRow) => void;
  /** Simulates SIGKILL after this many checkpoints: nothing more is written or committed. */
  killAfterCheckpoints?: number;
  readonly #stats: OutputStats = {
    rows: zero(),
    tombstones: zero(),
    rejected: zero(),
    extraFields: zero(),
    coercedValues: zero(),
    sanitizedStrings: zero(),
    files: 0,
    bytes: 0,
  };

  constructor(
    readonly store: FakeStore,
    readonly runId: string,
  ) {}

  #killed(): boolean {
    return this.killAfterCheckpoints !== undefined && this.checkpoints >= this.killAfterCheckpoints;
  }

  async writeRow(table: TableName, record: Record<string, unknown>, options?: { deleted?: boolean }): Promise<void> {
    if (this.#killed()) throw new Error('killed');
    const deleted = options?.deleted === true;
    // Keyed as the normalizer keys it (a column may read an embedded object: account's organization.slug).
    const keyless = recordKey(table)(record) === undefined;
    if (keyless) this.#stats.rejected[table] += 1;
    else {
      this.#stats.rows[table] += 1;
      if (deleted) this.#stats.tombstones[table] += 1;
    }
    const row = { runId: this.runId, table, record: structuredClone(record), deleted };
    this.pending.push(row);
    this.onWrite?.(row);
  }

  stage(changes: StateChange[]): void {
    this.staged.push(...changes);
  }

  async checkpoint(): Promise<void> {
    if (this.#killed()) throw new Error('killed');
    this.checkpoints += 1;
    this.checkpointSizes.push(this.pending.length);
    this.store.committed.push(...this.pending.splice(0));
    this.store.apply(this.staged);
    this.staged = [];
  }

  async finish(): Promise<{ manifestKey: string; files: number }> {
    await this.checkpoint();
    return { manifestKey: `_manifests/${this.runId}.json`, files: 0 };
  }

  stats(): OutputStats {
    return structuredClone(this.#stats);
  }

  /** What a SIGKILL or a failed run leaves: uncommitted rows and staged state are gone. */
  async abort(): Promise<void> {
    this.pending.splice(0);
    this.staged = [];
  }
}

/** Ids of a run's committed rows of one table, live and tombstoned, sorted. */
export function idsOf(store: FakeStore, runId: string, table: TableName): { live: string[]; deleted: string[] } {
  const rows = store.rowsOf(runId, table);
  const ids = (deleted: boolean) =>
    rows
      .filter((r) => r.deleted === deleted)
      .map((r) => String(r.record.id))
      .sort();
  return { live: ids(false), deleted: ids(true) };
}
