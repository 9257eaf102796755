import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The folder an installed package lives in, and its version: found from its entry point, since
 * packages whose `exports` leave out `package.json` cannot be resolved to it directly.
 */
export function packageDir(name: string): { dir: string; version: string } {
  let dir = dirname(require.resolve(name));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name: found, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (found === name) return { dir, version };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name)}`);
    dir = parent;
  }
}
