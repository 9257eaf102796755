import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { treeListing } from '../../support/tree-listing.js';
import { runCli } from '../sync/cli-run.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI_TIMEOUT_MS = 120_000;

/** The read-only commands of README's sandbox route; `report` writes its page outside the listed folder. */
const READ_ONLY: ReadonlyArray<[string, (page: string) => string[]]> = [
  ['check', () => ['check']],
  ['report', (page) => ['report', '--html', page]],
  ['state show', () => ['state', 'show']],
  ['verify', () => ['verify']],
  ['plan', () => ['plan']],
  ['schemas', () => ['schemas']],
];

describe('commands that only read change nothing on disk', () => {
  let sandbox: RunningSandbox;
  let cwd: string;
  let pages: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 5, conversations: 30, rateLimit: 100_000 });
    pages = mkdtempSync(join(tmpdir(), 'hs-read-only-pages-'));
  });

  afterAll(async () => {
    await sandbox?.close();
    for (const dir of [pages, cwd]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A working directory with README's sandbox config: output in ./out, state in ./.helpdesk-sync. */
  function freshConfig(): string {
    cwd && rmSync(cwd, { recursive: true, force: true });
    cwd = mkdtempSync(join(tmpdir(), 'hs-read-only-'));
    cpSync(join(ROOT, 'config'), join(cwd, 'config'), { recursive: true });
    return cwd;
  }
  const cli = (args: string[]) =>
    runCli(args, {
      cwd,
      env: {
        HELPDESK_SYNC_CONFIG: 'config/sandbox.yaml',
        HELPDESK_BASE_URL: sandbox.baseUrl,
        HELPDESK_TOKEN: undefined,
      },
    });

  it.each(READ_ONLY)(
    '%s on a config with no state yet creates nothing: no state, no output, no probe folder',
    async (name, args) => {
      freshConfig();
      const before = treeListing(cwd);
      const run = await cli(args(join(pages, `${name.replace(' ', '-')}.html`)));
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(treeListing(cwd)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'report on a config with no state yet writes a page that says there is no run',
    async () => {
      freshConfig();
      const page = join(pages, 'none.html');
      const run = await cli(['report', '--html', page]);
      expect(run.stdout).toBe(`status page of no runs yet (the first sync records one) written to ${page}\n`);
      expect(readFileSync(page, 'utf8')).toContain('No run is recorded in the state yet.');
      const show = await cli(['state', 'show']);
      expect(show.stdout).toBe('no state at ./.helpdesk-sync/state.sqlite yet: the first sync creates it\n');
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'after a sync, each leaves the working directory, the output and the state as they were',
    async () => {
      freshConfig();
      const sync = await cli(['sync']);
      expect(sync.code, sync.stderr).toBe(0);
      for (const [name, args] of READ_ONLY) {
        const before = treeListing(cwd);
        const run = await cli(args(join(pages, `${name.replace(' ', '-')}-after.html`)));
        expect(run.code, `${name}: ${run.stdout}${run.stderr}`).toBe(0);
        expect({ name, listing: treeListing(cwd) }).toEqual({ name, listing: before });
      }
    },
    CLI_TIMEOUT_MS,
  );
});
