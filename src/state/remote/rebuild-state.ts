import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StateCorruptError } from '../../errors.js';
import { fileSha256 } from '../../output/file-sha256.js';
import { applyChanges } from './apply-changes.js';
import type { ObjectStore } from './object-store.js';
import { baseKey, isSqliteFile, logKey, parseHead, type StateHead } from './state-head.js';

/** A head larger than this is not one. */
const MAX_HEAD_BYTES = 4 * 1024 * 1024;

/** Where the state is kept, and where its copy is rebuilt. */
export interface RebuildPlace {
  store: ObjectStore;
  key: string;
  /** Private directory (0700) for what is downloaded. */
  workDir: string;
  /** How a damaged or missing part is explained: what to do about it. */
  recovery: string;
}

/** What rebuildState() found: no state yet, a copy rebuilt (or the cached one still current), and the head. */
export type Rebuilt =
  | { outcome: 'absent' }
  | { outcome: 'found' | 'unchanged'; etag: string; head: StateHead | undefined };

function firstBytes(path: string, n: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

function corrupt(p: RebuildPlace, why: string): StateCorruptError {
  return new StateCorruptError(
    `state database ${p.store.describe(p.key)} (state.path) is corrupted (${why}). ${p.recovery}`,
  );
}

/** Copies one part the head names to `path`, checked against the size and sha256 the head gives. */
async function fetchPart(p: RebuildPlace, objectKey: string, path: string, want: { bytes: number; sha256: string }) {
  const got = await p.store.download(objectKey, path);
  if (got === null || got === 'unchanged') throw corrupt(p, `${p.store.describe(objectKey)} is missing`);
  const bytes = statSync(path).size;
  if (bytes !== want.bytes || (await fileSha256(path)) !== want.sha256) {
    throw corrupt(p, `${p.store.describe(objectKey)} is not the file the head names (${bytes} bytes)`);
  }
}

/**
 * Rebuilds the state at `localPath` from the head at `key`: the base, then
 * every change file in order, each checked against the head. A state written
 * as one SQLite object by earlier versions is copied as it is (head
 * undefined). With `cached` (a copy of the head at `cached.etag` already at
 * `localPath`), nothing is copied while the head is unchanged.
 */
export async function rebuildState(
  p: RebuildPlace,
  localPath: string,
  cached?: { etag: string; head: StateHead | undefined },
): Promise<Rebuilt> {
  const headPath = join(p.workDir, 'head.download');
  const got = await p.store.download(p.key, headPath, cached ? { ifNoneMatch: cached.etag } : undefined);
  if (got === 'unchanged' && cached) return { outcome: 'unchanged', etag: cached.etag, head: cached.head };
  // A cached copy that is no longer current goes, with its journal files.
  for (const stale of [localPath, `${localPath}-wal`, `${localPath}-shm`]) rmSync(stale, { force: true });
  if (got === null || got === 'unchanged') return { outcome: 'absent' };
  if (isSqliteFile(firstBytes(headPath, 16))) {
    renameSync(headPath, localPath);
    return { outcome: 'found', etag: got.etag, head: undefined };
  }
  const head = got.bytes <= MAX_HEAD_BYTES ? parseHead(readFileSync(headPath)) : undefined;
  rmSync(headPath, { force: true });
  if (!head) throw corrupt(p, 'the object is neither a state head nor a SQLite database');
  await fetchPart(p, baseKey(p.key, head), localPath, head.base);
  const db = new Database(localPath);
  try {
    for (const entry of head.log) {
      const path = join(p.workDir, `log-${entry.seq}.sqlite`);
      await fetchPart(p, logKey(p.key, head.generation, entry), path, entry);
      applyChanges(db, path);
      rmSync(path, { force: true });
    }
  } finally {
    db.close();
  }
  return { outcome: 'found', etag: got.etag, head };
}
