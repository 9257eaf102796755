import { type FileHandle, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateChange } from '../kv-state.js';
import type { MarkedFile } from '../output/batch-writer.js';

/** A file of a mark as the log keeps it: the writer's mark and the schema version its rows carry. */
export type MarkRecord = MarkedFile & { schema_version: string };

/**
 * One line of the mark log: the files of the run as they stood at the mark
 * (each entry supersedes the files of the one before) and the state changes
 * staged since the previous entry (the entries' changes add up).
 */
export interface MarkEntry {
  run_id: string;
  /**
   * The state's newest checkpoint when the mark was made: the marks hold only
   * on that very state (not on an older copy, e.g. one downloaded from object
   * storage that misses the run's last commit).
   */
  after_checkpoint: number;
  files: MarkRecord[];
  changes: StateChange[];
}

/** The log's name in the spool directory: it lives and dies with the spool files it describes. */
export const MARK_LOG = 'marks.jsonl';

export const markLogPath = (spoolDir: string) => join(spoolDir, MARK_LOG);

/** A state value is text or bytes: bytes travel as base64 in the log's JSON. */
type LoggedChange = Omit<StateChange, 'value'> & { value: string | null | { b64: string } };

const toLogged = (c: StateChange): LoggedChange =>
  c.value instanceof Uint8Array
    ? { ...c, value: { b64: Buffer.from(c.value).toString('base64') } }
    : (c as LoggedChange);

const fromLogged = (c: LoggedChange): StateChange =>
  c.value !== null && typeof c.value === 'object'
    ? { ...c, value: new Uint8Array(Buffer.from(c.value.b64, 'base64')) }
    : (c as StateChange);

/**
 * The mark log of a run's spool (docs/architecture.md, "Marks"): an
 * append-only file, each line written and fdatasync'd after the files it
 * names are durable up to their marks. Cleared when a checkpoint takes the
 * files over, so it only ever describes work no checkpoint holds.
 */
export class MarkLog {
  #handle: FileHandle | undefined;

  constructor(readonly path: string) {}

  async append(entry: MarkEntry): Promise<void> {
    this.#handle ??= await open(this.path, 'a', 0o600);
    await this.#handle.appendFile(`${JSON.stringify({ ...entry, changes: entry.changes.map(toLogged) })}\n`);
    await this.#handle.datasync();
  }

  /** The files and changes it described are now a checkpoint's (or given up): the log goes. */
  async clear(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
    await rm(this.path, { force: true });
  }
}

/**
 * The entries of a log left by a killed run, up to the first line that does not
 * parse (a line cut short by the kill: the entries before it still hold).
 */
export async function readMarkLog(path: string): Promise<MarkEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: MarkEntry[] = [];
  for (const line of text.split('\n')) {
    if (line === '') break;
    try {
      const entry = JSON.parse(line) as MarkEntry & { changes: LoggedChange[] };
      entries.push({ ...entry, changes: entry.changes.map(fromLogged) });
    } catch {
      break;
    }
  }
  return entries;
}
