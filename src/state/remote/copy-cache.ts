import { rmSync } from 'node:fs';
import type { StateHead } from './state-head.js';

/** A local copy of a state in object storage, left by a run that uploaded everything it committed. */
export interface CachedCopy {
  /** The private directory (0700) holding `state.sqlite`. */
  dir: string;
  /** The head's ETag the copy is at. */
  etag: string;
  head: StateHead | undefined;
}

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
