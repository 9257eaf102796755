import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every file under `dir` with its size and mtime, and every folder by its path:
 * two listings are equal when nothing under `dir` was created, changed or
 * deleted. A folder's own mtime is left out: it moves whenever an entry comes and
 * goes (SQLite's `-wal` of a reader included).
 */
export function treeListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        out.push(`${relative(dir, path)}/`);
        walk(path);
      } else {
        const info = statSync(path);
        out.push(`${relative(dir, path)} ${info.size} ${info.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}
