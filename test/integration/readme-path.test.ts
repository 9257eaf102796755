import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start.js';
import { runCli, runProcess } from './sync/cli-run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CLI_TIMEOUT_MS = 180_000;

/** The README's lines this test follows, so a README that changes them fails here first. */
const README_LINES = [
  'npm ci && npm run demo',
  'npx helpdesk-sync sandbox --port 4010 --seed 1',
  'export HELPDESK_SYNC_CONFIG=config/sandbox.yaml',
  'npx helpdesk-sync check',
  'npx helpdesk-sync sync',
  'npx helpdesk-sync state show',
  'npx helpdesk-sync plan',
  'npx helpdesk-sync verify',
  'npx helpdesk-sync load',
  'npx helpdesk-sync query "SELECT status, count(*) FROM conversations GROUP BY status"',
  'npx helpdesk-sync report --html status.html',
];

interface Listed {
  key: string;
  bytes: number;
  sha256: string;
}

/** Every file the manifests under `out` list, and the ones that are missing or differ. */
function manifestCheck(out: string): { listed: number; missing: string[] } {
  const missing: string[] = [];
  let listed = 0;
  for (const name of readdirSync(join(out, '_manifests'))) {
    const manifest = JSON.parse(readFileSync(join(out, '_manifests', name), 'utf8')) as {
      files: Listed[];
      rejected_files: Listed[];
    };
    for (const file of [...manifest.files, ...manifest.rejected_files]) {
      listed += 1;
      const path = join(out, file.key);
      if (!existsSync(path)) missing.push(`${file.key} (missing)`);
      else if (createHash('sha256').update(readFileSync(path)).digest('hex') !== file.sha256) {
        missing.push(`${file.key} (differs)`);
      }
    }
  }
  return { listed, missing };
}

describe("README's commands in README's order", () => {
  let sandbox: RunningSandbox;
  let cwd: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The sandbox route's own server, kept small so the API's 300 requests a minute are not reached.
    sandbox = await startSandbox({ port: 0, seed: 1, conversations: 40 });
    cwd = mkdtempSync(join(tmpdir(), 'hs-readme-'));
    cpSync(join(ROOT, 'config'), join(cwd, 'config'), { recursive: true });
    env = { HELPDESK_SYNC_CONFIG: 'config/sandbox.yaml', HELPDESK_BASE_URL: sandbox.baseUrl };
  });

  afterAll(async () => {
    await sandbox?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const demo = () => runProcess(process.execPath, [join(ROOT, 'dist', 'demo', 'main.js')], { cwd });
  const cli = (...args: string[]) => runCli(args, { cwd, env });

  it('are the README’s', () => {
    for (const line of README_LINES) expect(README).toContain(line);
  });

  it(
    'demo, the sandbox route, the demo again and a sandbox sync: every file every manifest lists is there',
    async () => {
      expect((await demo()).code).toBe(0);

      const check = await cli('check');
      expect(check.stderr).not.toContain('file not found');
      expect(check.code, check.stdout + check.stderr).toBe(0);
      const sync = await cli('sync');
      expect(sync.code, sync.stderr).toBe(0);
      const show = await cli('state', 'show');
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain(join('.helpdesk-sync', 'state.sqlite'));
      expect(show.stdout, show.stdout).toMatch(
        / {2}conversations +[1-9]\d* conversations\n {2}messages +[1-9]\d* threads/,
      );
      const plan = await cli('plan');
      expect(plan.code, plan.stderr).toBe(0);
      const verify = await cli('verify');
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      const load = await cli('load');
      expect(load.code, load.stdout + load.stderr).toBe(0);
      expect(load.stdout).toMatch(/1 manifests? loaded/);
      expect(existsSync(join(cwd, '.helpdesk-sync', 'state.duckdb'))).toBe(true);
      // The last step works with what npm ci installed: no duckdb shell on the PATH.
      const query = await cli('query', 'SELECT status, count(*) FROM conversations GROUP BY status');
      expect(query.code, query.stderr).toBe(0);
      expect(query.stdout).toMatch(/^status +count_star\(\)\n-+ +-+\n(\w+ +\d+\n)+\(\d+ rows?\)\n$/);
      const report = await cli('report', '--html', 'status.html');
      expect(report.code, report.stderr).toBe(0);
      expect(readFileSync(join(cwd, 'status.html'), 'utf8')).toContain('<h1>helpdesk-sync status</h1>');

      const again = await demo();
      expect(again.code, again.stderr).toBe(0);
      const resync = await cli('sync');
      expect(resync.code, resync.stderr).toBe(0);
      // Nothing changed in the sandbox, and none of the first sync's files went missing.
      expect(resync.stdout).toMatch(/conversations listed [1-9]\d*: 0 new or changed/);

      const sandboxRoute = manifestCheck(join(cwd, 'out'));
      expect(readdirSync(join(cwd, 'out', '_manifests'))).toHaveLength(2);
      expect(sandboxRoute.listed).toBeGreaterThan(0);
      expect(sandboxRoute.missing).toEqual([]);
      const demoRoute = manifestCheck(join(cwd, 'demo', 'out'));
      expect(demoRoute.listed).toBeGreaterThan(0);
      expect(demoRoute.missing).toEqual([]);
    },
    CLI_TIMEOUT_MS,
  );
});
