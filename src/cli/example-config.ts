import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = 'config/helpdesk-sync.example.yaml';

/**
 * The example config to copy, as a path to type from the working directory: the
 * checkout's own when it is run from there (README's route), else the one the
 * package ships (`config/` is in its files), found two levels above this module
 * as it runs from src/cli, dist/cli or dist/chunks.
 */
export function exampleConfigPath(cwd = process.cwd()): string {
  if (existsSync(`${cwd}/${EXAMPLE}`)) return EXAMPLE;
  for (const up of ['../../', '../']) {
    const path = fileURLToPath(new URL(`${up}${EXAMPLE}`, import.meta.url));
    if (existsSync(path)) {
      const near = relative(cwd, path);
      return near.startsWith('..') ? path : near;
    }
  }
  return EXAMPLE;
}
