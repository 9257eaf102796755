import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { fetchSandboxStats } from '../api/sandbox-stats.js';
import { runCli } from './cli-run.js';

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup) await step();
});

/**
 * A deployment whose window is not the documented minute, a config that asks for more than
 * it allows (requests_per_minute 600, concurrency 4, the window left to be learned), and two
 * syncs one after the other: the first learns the window with its one probe, the second
 * starts inside the window the first spent.
 */
async function twoSyncs(limit: number, windowSeconds: number): Promise<{ limited: number; codes: number[] }> {
  const sandbox: RunningSandbox = await startSandbox({
    port: 0,
    seed: 4,
    conversations: 20,
    rateLimit: limit,
    rateWindowSeconds: windowSeconds,
  });
  const dir = mkdtempSync(join(tmpdir(), 'hs-one-probe-'));
  cleanup.push(async () => {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      source: {
        base_url: sandbox.baseUrl,
        token: '${HELPDESK_TOKEN}',
        rate_limit: { requests_per_minute: 600, concurrency: 4 },
      },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state.sqlite') },
      reports: { lookback_days: 0, start_date: new Date().toISOString().slice(0, 10) },
    }),
  );
  const codes: number[] = [];
  for (const args of [['sync'], ['sync', '--full-refresh']]) {
    const run = await runCli([...args, '--config', config], { env: { HELPDESK_TOKEN: 'sandbox-admin' } });
    codes.push(run.code ?? -1);
  }
  const stats = await fetchSandboxStats(sandbox.origin);
  return { limited: stats.by_status['429'] ?? 0, codes };
}

describe('a learned window costs one probe 429, the runs after it none', () => {
  it.each([
    [20, 2],
    [20, 10],
  ])(
    '%i requests per %i s: one 429 in two syncs',
    async (limit, windowSeconds) => {
      const { limited, codes } = await twoSyncs(limit, windowSeconds);
      expect(codes).toEqual([0, 0]);
      expect(limited).toBeLessThanOrEqual(1);
    },
    180_000,
  );
});
