import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A Node system error's code (`ENOENT`, `EACCES`), which is stable like ours; undefined for any other error. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** The path itself or its nearest parent that exists. */
function nearestExisting(path: string): string {
  let at = resolve(path);
  for (;;) {
    try {
      statSync(at);
      return at;
    } catch {
      const up = dirname(at);
      if (up === at) return at;
      at = up;
    }
  }
}

function uid(): string {
  return String(process.getuid?.() ?? '?');
}

/**
 * Why nothing can be written at `path` (a file, or with `directory` a directory
 * to be), found on the path itself or its nearest existing parent: a file
 * standing where a directory is needed, a read-only file system, missing
 * permission. Undefined when none of those holds.
 */
export function whyNotWritable(path: string, directory = false): string | undefined {
  const at = nearestExisting(path);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(at).isDirectory();
  } catch {
    return undefined;
  }
  if (!isDirectory && (directory || at !== resolve(path))) return `${at} is a file, not a directory`;
  try {
    accessSync(at, constants.W_OK);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'EROFS') return `read-only file system at ${at}`;
    if (code === 'EACCES' || code === 'EPERM') return `permission denied at ${at} (this process runs as uid ${uid()})`;
  }
  return undefined;
}

/**
 * Why a file-system call on `path` failed, in words a person can act on: the
 * errno's meaning, and for the errors that say little (ENOENT from a recursive
 * mkdir on a read-only mount, EEXIST or ENOTDIR where a file stands in the way)
 * what the path and its nearest existing parent show (`directory`: `path` is a
 * directory to be). Falls back to the error's own message.
 */
export function explainPathError(error: unknown, path: string, directory = false): string {
  const message = error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error);
  switch (errnoOf(error)) {
    case 'EROFS':
      return `read-only file system (${message})`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied: this process runs as uid ${uid()} (${message})`;
    case 'ENOSPC':
      return `no space left on device (${message})`;
    case 'EDQUOT':
      return `disk quota exceeded (${message})`;
    case 'EISDIR':
      return `a directory stands where a file is needed (${message})`;
    case 'EEXIST':
    case 'ENOTDIR':
    case 'ENOENT':
      return whyNotWritable(path, directory) ?? message;
    default:
      return message;
  }
}
