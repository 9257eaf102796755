import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../../plain-object.js';

/**
 * The object at `state.path` in object storage: a small JSON document naming
 * what the state is made of (docs/state.md › State in object storage): a
 * base (a whole SQLite database) and the change files written after it, in
 * order, all under `<key>.d/<generation>/`. Every upload writes a new head with
 * `If-Match` on the last one, so the head is where conditional writes guard
 * the state; the files it names are never overwritten (their names carry a hash
 * of their content).
 */
export interface StateHead {
  format: typeof FORMAT;
  /** Names the base and its change files; a new base starts a new generation. */
  generation: string;
  /** The state's schema version (migrations): change files only ever apply to a base of the same. */
  schema: number;
  base: { bytes: number; sha256: string };
  log: LogEntry[];
  /** Who wrote this head, and when: makes each head's bytes unique (a retried write recognises its own). */
  writer: string;
  written_at: string;
}

export interface LogEntry {
  seq: number;
  bytes: number;
  /** sha256 of the change file, hex; its first 16 digits name the object. */
  sha256: string;
}

const FORMAT = 'helpdesk-sync-state/2';

/** The first bytes of every SQLite database file: a state written as one object by earlier versions. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function isSqliteFile(start: Buffer): boolean {
  return start.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
}

/** A new generation's name: sorts by time, unique by its random part. */
export function newGeneration(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** A writer's id, for `writer`. */
export function newWriterId(): string {
  return randomBytes(8).toString('hex');
}

/** Object keys of a head's parts, under the state's key. */
export function baseKey(stateKey: string, head: Pick<StateHead, 'generation' | 'base'>): string {
  return `${stateKey}.d/${head.generation}/base-${head.base.sha256.slice(0, 16)}.sqlite`;
}

export function logKey(stateKey: string, generation: string, entry: LogEntry): string {
  return `${stateKey}.d/${generation}/log-${String(entry.seq).padStart(8, '0')}-${entry.sha256.slice(0, 16)}.sqlite`;
}

/** Every object a head names (to delete a generation once a newer one is in place). */
export function objectsOf(stateKey: string, head: StateHead): string[] {
  return [baseKey(stateKey, head), ...head.log.map((entry) => logKey(stateKey, head.generation, entry))];
}

export function serializeHead(head: StateHead): Buffer {
  return Buffer.from(`${JSON.stringify(head)}\n`);
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** A head read back; undefined when the bytes are not one (the caller names the object in its error). */
export function parseHead(bytes: Buffer): StateHead | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || value.format !== FORMAT) return undefined;
  const { generation, schema, base, log } = value;
  if (typeof generation !== 'string' || !/^[0-9A-Za-z-]+$/.test(generation) || !isCount(schema)) return undefined;
  if (!isPlainObject(base) || !isCount(base.bytes) || !isHash(base.sha256) || !Array.isArray(log)) return undefined;
  const entries = log.every((e) => isPlainObject(e) && isCount(e.seq) && isCount(e.bytes) && isHash(e.sha256));
  if (!entries) return undefined;
  return value as unknown as StateHead;
}
