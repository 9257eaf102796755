import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The sources the architecture tests read. */
export const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src');

/** Every TypeScript file under `dir`, as absolute paths. */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
