import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { StateError } from '../../errors.js';
import { parseHead, type StateHead, serializeHead } from './state-head.js';

/** A local copy of a state in object storage, left by a run that uploaded everything it committed. */
export interface CachedCopy {
  /** The private directory (0700) holding `state.sqlite`. */
  dir: string;
  /** The head's ETag the copy is at. */
  etag: string;
  head: StateHead | undefined;
}

/** The database file of a local copy, inside its directory. */
export const copyDatabase = (dir: string) => join(dir, 'state.sqlite');

const copies = new Map<string, CachedCopy>();
let cleanupInstalled = false;

/**
 * Takes the copy a previous run of this process left of the state at `url`
 * (the daemon runs every sync in one process): the next run asks the store
 * for the head only if it changed (If-None-Match), and reuses the copy when it
 * did not, instead of downloading the whole state again. Taken, it is the
 * taker's; a run that cannot vouch for its copy at the end removes it.
 */
export function takeCachedCopy(url: string): CachedCopy | undefined {
  const copy = copies.get(url);
  copies.delete(url);
  return copy;
}

/** Keeps `copy` for the next run of this process; the directory is removed when the process exits. */
export function keepCopy(url: string, copy: CachedCopy): void {
  const previous = copies.get(url);
  if (previous && previous.dir !== copy.dir) rmSync(previous.dir, { recursive: true, force: true });
  copies.set(url, copy);
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    process.on('exit', () => {
      for (const { dir } of copies.values()) rmSync(dir, { recursive: true, force: true });
    });
  }
}

/** What a kept copy's `copy.json` says: which state, at which head. */
interface CopyRecord {
  url: string;
  etag: string;
  head: string | null;
}

const RECORD = 'copy.json';

/**
 * The copy kept in `state.cache_dir` (docs/state.md › State in object
 * storage), for the next run of any process that mounts the directory (a
 * scheduled container with a volume). One entry per state, a directory named
 * after a hash of its URL: `<id>/` holding `state.sqlite` and `copy.json`. A
 * run works in `<id>.run-*` beside it; at a clean end its directory becomes
 * `<id>/`. Taking renames `<id>/` to the run's own directory, so a run that
 * crashes leaves no copy that looks current, only its run directory, which the
 * next run of the state removes (it holds the state's lock: no other run of the
 * state is live).
 */
export class DiskCopyCache {
  readonly #id: string;
  /** Names of the run directories of this state: `<id>.run-…`. */
  readonly #runPrefix: string;

  constructor(
    private readonly cacheDir: string,
    private readonly url: string,
  ) {
    this.#id = createHash('sha256').update(url).digest('hex').slice(0, 16);
    this.#runPrefix = `${this.#id}.run-`;
  }

  /** The kept copy of the state, now the caller's (its directory renamed); undefined when there is none that can be trusted. */
  take(): CachedCopy | undefined {
    return this.#guard(() => this.#take());
  }

  /** A fresh private directory (0700) for a run that found no copy. */
  workDir(): string {
    return this.#guard(() => {
      mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
      return mkdtempSync(join(this.cacheDir, this.#runPrefix));
    });
  }

  #guard<T>(act: () => T): T {
    try {
      return act();
    } catch (cause) {
      throw new StateError(`state.cache_dir ${this.cacheDir} cannot be used: ${(cause as Error).message}`, { cause });
    }
  }

  #take(): CachedCopy | undefined {
    mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(this.cacheDir)) {
      if (name.startsWith(this.#runPrefix)) rmSync(join(this.cacheDir, name), { recursive: true, force: true });
    }
    const entry = join(this.cacheDir, this.#id);
    const dir = join(this.cacheDir, `${this.#runPrefix}${process.pid}-${Date.now().toString(36)}`);
    try {
      renameSync(entry, dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const copy = this.#read(dir);
    if (!copy) rmSync(dir, { recursive: true, force: true });
    return copy;
  }

  /** Keeps the run's directory (its database closed, everything uploaded) as the state's copy at `etag`. */
  keep(copy: CachedCopy): void {
    const record: CopyRecord = {
      url: this.url,
      etag: copy.etag,
      head: copy.head ? serializeHead(copy.head).toString('utf8') : null,
    };
    writeFileSync(join(copy.dir, RECORD), JSON.stringify(record), { mode: 0o600 });
    const entry = join(this.cacheDir, this.#id);
    rmSync(entry, { recursive: true, force: true });
    renameSync(copy.dir, entry);
  }

  /** The copy in `dir`, when its record names this state and its database is there. */
  #read(dir: string): CachedCopy | undefined {
    let record: Partial<CopyRecord>;
    try {
      record = JSON.parse(readFileSync(join(dir, RECORD), 'utf8')) as Partial<CopyRecord>;
    } catch {
      return undefined;
    }
    if (record.url !== this.url || typeof record.etag !== 'string' || !existsSync(copyDatabase(dir))) {
      return undefined;
    }
    if (record.head === null) return { dir, etag: record.etag, head: undefined };
    const head = typeof record.head === 'string' ? parseHead(Buffer.from(record.head)) : undefined;
    return head ? { dir, etag: record.etag, head } : undefined;
  }
}
