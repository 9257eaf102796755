import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type CliResult, runCli } from '../sync/cli-run.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TOKEN = 'not-a-valid-token-4711';
/** A JS class name (`RetriableApiError`, `UsageError`): never part of what a command says. */
const CLASS_NAME = /\b[A-Z][A-Za-z]*Error\b/;

let sandbox: RunningSandbox;
let cwd: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 3, conversations: 20, rateLimit: 100_000 });
  cwd = mkdtempSync(join(tmpdir(), 'hs-cli-errors-'));
  cpSync(join(ROOT, 'config'), join(cwd, 'config'), { recursive: true });
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** README's route: the example copied to the default path, the URL and the token from the environment. */
function useExample(edit: (text: string) => string = (t) => t): void {
  const example = readFileSync(join(cwd, 'config', 'helpdesk-sync.example.yaml'), 'utf8');
  writeFileSync(join(cwd, 'config', 'helpdesk-sync.yaml'), edit(example));
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}, dir = cwd): Promise<CliResult> =>
  runCli(args, {
    cwd: dir,
    // The words a person reads at a terminal: off one, the logs (and an ending error) are JSON lines.
    env: {
      HELPDESK_SYNC_CONFIG: undefined,
      HELPDESK_BASE_URL: sandbox.baseUrl,
      HELPDESK_SYNC_LOG_FORMAT: 'human',
      ...env,
    },
  });

/** A port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('a command that fails says what happened and what to do', () => {
  it('no config file: the path looked at, how it was chosen, and the example to copy', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hs-no-config-'));
    try {
      const byDefault = await cli(['check'], {}, empty);
      expect(byDefault.code).toBe(64);
      expect(byDefault.stderr).toContain(
        'error [CONFIG_NOT_FOUND]: no config file at config/helpdesk-sync.yaml (the default path, as neither ' +
          `--config nor HELPDESK_SYNC_CONFIG names one; looked for as ${resolve(empty, 'config/helpdesk-sync.yaml')})`,
      );
      const example = join(ROOT, 'config', 'helpdesk-sync.example.yaml');
      expect(byDefault.stderr).toContain(`  start from the example: cp ${example} config/helpdesk-sync.yaml\n`);
      const byEnv = await cli(['sync'], { HELPDESK_SYNC_CONFIG: 'ops.yaml' }, empty);
      expect(byEnv.stderr).toContain('no config file at ops.yaml (named by HELPDESK_SYNC_CONFIG;');
      const byFlag = await cli(['load', '--config', '/nowhere/hs.yaml'], {}, empty);
      expect(byFlag.stderr).toContain(
        'error [CONFIG_NOT_FOUND]: no config file at /nowhere/hs.yaml (named by --config)',
      );
      for (const run of [byDefault, byEnv, byFlag]) expect(run.stderr).not.toMatch(CLASS_NAME);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a refused token: the variable it came from, never the token; in sync and in check', async () => {
    useExample();
    const sync = await cli(['sync'], { HELPDESK_TOKEN: TOKEN });
    expect(sync.code).toBe(1);
    expect(sync.stderr).toBe(
      `error [API_UNAUTHORIZED]: GET ${sandbox.baseUrl}/me failed with status 401: Unauthenticated.\n` +
        '  the API refused the token from HELPDESK_TOKEN, which source.token of config/helpdesk-sync.yaml reads: ' +
        'set HELPDESK_TOKEN to a valid personal access token\n',
    );
    const check = await cli(['check'], { HELPDESK_TOKEN: TOKEN });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      '\n      the API refused the token from HELPDESK_TOKEN, which source.token of config/helpdesk-sync.yaml reads',
    );
    for (const run of [sync, check]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('an unreachable host: check names it at once, without the retries a sync makes', async () => {
    useExample();
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const check = await cli(['check'], { HELPDESK_BASE_URL: url, HELPDESK_TOKEN: TOKEN });
    expect(check.code).toBe(1);
    const host = new URL(url).host;
    expect(check.stdout).toContain(
      `FAIL  api: cannot connect to ${host}: connection refused (nothing listens on that port)\n` +
        `      nothing answered at ${host}: is the API up and reachable from here? ` +
        'check HELPDESK_BASE_URL, which source.base_url of config/helpdesk-sync.yaml reads\n',
    );
    expect(check.stderr).not.toContain('retrying');
  });

  it('a mistyped config key: the known key it is nearest to', async () => {
    useExample((t) => t.replace('  token: ${HELPDESK_TOKEN}', '  tokne: ${HELPDESK_TOKEN}'));
    const check = await cli(['check'], { HELPDESK_TOKEN: TOKEN });
    expect(check.code).toBe(64);
    expect(check.stderr).toContain('  - source: unknown key(s): tokne (did you mean token?)\n');
    expect(check.stderr).not.toMatch(CLASS_NAME);
  });

  it('an invalid cron expression: which field, and its range', async () => {
    useExample((t) => t.replace('sync: "*/15 * * * *"', 'sync: "0 25 * * *"'));
    const check = await cli(['check'], { HELPDESK_TOKEN: TOKEN });
    expect(check.code).toBe(64);
    expect(check.stderr).toContain('  - schedule.sync: field 2 (hour) "25" is out of range 0-23\n');
  });

  it('a mistyped option: one line with the nearest option, not the whole help', async () => {
    const run = await cli(['sync', '--stream', 'tags']);
    expect(run.code).toBe(64);
    expect(run.stderr).toBe(
      "error: unknown option '--stream'\n(Did you mean --streams?)\n(helpdesk-sync sync --help lists what it takes)\n",
    );
  });

  it('a mistyped command or stream name: the nearest one', async () => {
    const command = await cli(['qurey', 'SELECT 1']);
    expect(command.code).toBe(64);
    expect(command.stderr).toBe(
      "error: unknown command 'qurey'\n(Did you mean query?)\n(helpdesk-sync --help lists what it takes)\n",
    );
    useExample();
    const stream = await cli(['sync', '--streams', 'conversations,tagz'], { HELPDESK_TOKEN: TOKEN });
    expect(stream.code).toBe(64);
    expect(stream.stderr).toMatch(
      /^error \[USAGE\]: --streams: unknown stream\(s\) tagz \(did you mean tags\?\); valid: /,
    );
    expect(stream.stdout + stream.stderr).not.toMatch(CLASS_NAME);
  });

  it('check refuses the push files plan refuses, with the same lines', async () => {
    useExample();
    writeFileSync(
      join(cwd, 'config', 'bad-holidays.yaml'),
      'holidays:\n  - { key: xmas, name: Christmas, start_date: "2026-12-26", end_date: "2026-12-25" }\n',
    );
    useExample((t) => t.replace('holidays: ./config/holidays.yaml', 'holidays: ./config/bad-holidays.yaml'));
    const env = { HELPDESK_TOKEN: 'sandbox-admin' };
    const plan = await cli(['plan'], env);
    expect(plan.code).toBe(64);
    const problem = plan.stderr.split('\n').find((l) => l.includes('bad-holidays.yaml, holidays[0]'));
    expect(problem).toContain('end_date');
    const check = await cli(['check'], env);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('FAIL  push files: Invalid configuration in ./config/bad-holidays.yaml');
    expect(check.stdout).toContain(`      ${problem?.trim()}\n`);
  });
});
