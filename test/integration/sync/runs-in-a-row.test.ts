import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { fetchSandboxStats } from '../api/sandbox-stats.js';
import { type CliResult, runCli } from './cli-run.js';

// The sandbox at its defaults (300 requests per 60 s per IP, the documented api.global), the
// config at its defaults (requests_per_minute 300, the window learned), and what a person does:
// `check`, then `sync`, then another full sync at once, all within one minute.
let sandbox: RunningSandbox;
let dir: string;
let config: string;
const runs: CliResult[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 9, conversations: 180 });
  dir = mkdtempSync(join(tmpdir(), 'hs-in-a-row-'));
  config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      source: { base_url: sandbox.baseUrl, token: '${HELPDESK_TOKEN}' },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state.sqlite') },
      reports: { lookback_days: 0, start_date: new Date().toISOString().slice(0, 10) },
    }),
  );
  const env = { HELPDESK_TOKEN: 'sandbox-admin' };
  for (const args of [['check'], ['sync'], ['sync', '--full-refresh']]) {
    runs.push(await runCli([...args, '--config', config, '--log-format', 'json'], { env }));
  }
}, 240_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('check, sync, sync again within a minute, against the default limit', () => {
  it('meets no 429: each run paces from what the ones before it left', async () => {
    for (const run of runs) expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const server = await fetchSandboxStats(sandbox.origin);
    // Three windows' worth of requests would not fit: the last sync waited for the window instead.
    expect(server.total).toBeGreaterThan(300);
    expect(server.by_status['429'] ?? 0).toBe(0);
    expect(runs[2]?.stdout).toMatch(/requests \d+ \(429s 0, retries 0, waited for rate budget [1-9]/);
  });
});
