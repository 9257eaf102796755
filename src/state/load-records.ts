import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StateSettings } from '../config/state-location.js';
import { StateError } from '../errors.js';
import type { ObjectStore } from './remote/object-store.js';
import { stateObjectStore } from './state-from-config.js';

/**
 * How the last load into one target went, as one account's state remembers it
 * (docs/loading.md, "What the status page says of the warehouse"). The target is
 * described without secrets (describeLoadTarget): a PostgreSQL password is never
 * written here.
 */
export interface LoadRecord {
  /** The target, described without secrets. */
  target: string;
  /**
   * When the last load that listed the output began: every manifest the state
   * confirmed before it was listed by that load, and is loaded unless `waiting`
   * names it. A load that failed before listing keeps the previous record's
   * (empty when none: then nothing is known loaded).
   */
  listed_at: string;
  /** When this load ended. */
  finished_at: string;
  outcome: 'succeeded' | 'failed' | 'interrupted';
  /** When the last load that succeeded ended (this one, or an earlier one); absent when none has. */
  last_succeeded_at?: string;
  /** This account's manifests the load loaded, and their rows (as the manifests count them). */
  manifests_loaded: number;
  rows: number;
  /** The error's stable code, and the manifest it stopped at when one failed. No message: it may quote the target. */
  error?: { code: string; run_id?: string };
  /** This account's manifests the listing load did not load (a failure stops at one, later ones wait for it). */
  waiting: string[];
}

/** Every target's last load, by described target. */
export type LoadRecords = Record<string, LoadRecord>;

/**
 * Where a state keeps its load records: beside the state, never in it. A load
 * takes no run lock (a sync may be running meanwhile), and an `s3://` state is
 * written only under that lock; so the records are one small JSON document next
 * to the state — a file beside a local state, an object beside an `s3://` one —
 * which the status page reads with the state and which a load rewrites whole.
 */
export interface LoadRecordStore {
  read(): Promise<LoadRecords>;
  /** Replaces the record of `record.target`, keeping the other targets'. */
  write(record: LoadRecord): Promise<void>;
}

/** The records' name beside the state: `<state>.loads.json`. */
export function loadRecordsName(statePathOrKey: string): string {
  return `${statePathOrKey}.loads.json`;
}

function parse(text: string, where: string): LoadRecords {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as LoadRecords;
  } catch (error) {
    throw new StateError(`load records ${where} are not JSON: ${(error as Error).message}`, { cause: error });
  }
  throw new StateError(`load records ${where} are not a JSON object`);
}

/**
 * Records in a file beside a local state, replaced by rename so a reader never
 * sees half of one. No state file, no record: a load before any sync, or with a
 * mistyped `state.path`, leaves nothing behind.
 */
export function localLoadRecords(statePath: string): LoadRecordStore {
  const path = loadRecordsName(statePath);
  const read = async (): Promise<LoadRecords> => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    return parse(text, path);
  };
  return {
    read,
    async write(record) {
      if (!existsSync(statePath)) return;
      // Two loads into different targets of one state at the same instant: the later rename wins
      // and the other target's record waits for its next load (loads into one target are serialized by its lock).
      const records = { ...(await read()), [record.target]: record };
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, path);
    },
  };
}

/** Conditional writes that lose to another writer read again and retry this many times. */
const S3_ATTEMPTS = 5;

/** Records in an object beside an `s3://` state, written only over the version read (If-Match), so two loads never drop each other's target. */
export function s3LoadRecords(store: ObjectStore, stateKey: string): LoadRecordStore {
  const key = loadRecordsName(stateKey);
  const get = async () => {
    const found = await store.get(key);
    return found ? { records: parse(found.body.toString('utf8'), store.describe(key)), etag: found.etag } : undefined;
  };
  return {
    read: async () => (await get())?.records ?? {},
    async write(record) {
      for (let attempt = 0; attempt < S3_ATTEMPTS; attempt++) {
        const found = await get();
        const body = Buffer.from(`${JSON.stringify({ ...found?.records, [record.target]: record }, null, 2)}\n`);
        const written = await store.put(key, body, found ? { ifMatch: found.etag } : { ifNoneMatch: '*' });
        if (written !== null) return;
      }
      throw new StateError(
        `load records ${store.describe(key)}: another writer changed them ${S3_ATTEMPTS} times in a row`,
      );
    },
  };
}

/** The load records beside the state `settings` name; `close` frees an `s3://` state's client. */
export function openLoadRecords(settings: StateSettings): LoadRecordStore & { close(): void } {
  const remote = stateObjectStore(settings);
  if (!remote) return { ...localLoadRecords(settings.path), close: () => undefined };
  return { ...s3LoadRecords(remote.store, remote.key), close: () => remote.store.close() };
}

/** What a load tells of one account (load/recorded-load.ts): a record without the fields kept from the previous one. */
export type LoadOutcome = Omit<LoadRecord, 'listed_at' | 'waiting' | 'last_succeeded_at'> & {
  /** Absent when the load failed before listing the manifests: the previous listing stands. */
  listed_at?: string;
  waiting?: string[];
};

/**
 * Replaces the target's record with this load's. A load that never listed the
 * manifests says nothing of which are loaded: the previous record's listing
 * stands (none: nothing is known loaded). The last success is kept across failures.
 */
export async function recordLoad(store: LoadRecordStore, outcome: LoadOutcome): Promise<void> {
  const previous = (await store.read())[outcome.target];
  const succeeded = outcome.outcome === 'succeeded' ? outcome.finished_at : previous?.last_succeeded_at;
  await store.write({
    ...outcome,
    listed_at: outcome.listed_at ?? previous?.listed_at ?? '',
    waiting: outcome.waiting ?? previous?.waiting ?? [],
    ...(succeeded === undefined ? {} : { last_succeeded_at: succeeded }),
  });
}

/** Records a load's outcome beside the state `settings` name. */
export async function recordLoadBesideState(settings: StateSettings, outcome: LoadOutcome): Promise<void> {
  const store = openLoadRecords(settings);
  try {
    await recordLoad(store, outcome);
  } finally {
    store.close();
  }
}
