import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../../src/sandbox/start.js';

/**
 * A sandbox and a config file for it in a fresh directory (output and state there
 * too), stopped and removed after the file's tests. `config` is merged over the
 * source, destination and state it sets.
 */
export function sandboxWithConfig(): (
  sandbox: SandboxOptions,
  config: (baseUrl: string, dir: string) => Record<string, unknown>,
) => Promise<{ sandbox: RunningSandbox; dir: string; config: string }> {
  const dirs: string[] = [];
  const sandboxes: RunningSandbox[] = [];
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return async (options, extra) => {
    const sandbox = await startSandbox({ port: 0, ...options });
    sandboxes.push(sandbox);
    const dir = mkdtempSync(join(tmpdir(), 'hs-pty-'));
    dirs.push(dir);
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        destination: { type: 'local', path: join(dir, 'out') },
        state: { path: join(dir, 'state.sqlite') },
        ...extra(sandbox.baseUrl, dir),
      }),
    );
    return { sandbox, dir, config };
  };
}
