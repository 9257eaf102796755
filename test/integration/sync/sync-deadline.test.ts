import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/start.js';
import { runCli } from './cli-run.js';
import { expectOutputEqualsApi } from './quirk-harness.js';
import { readTables, type SyncEnv, startSyncEnv } from './support.js';

/**
 * run.deadline_seconds against a server that keeps the run waiting: the
 * sandbox allows 30 requests a minute, a first sync needs more, so the run
 * waits for the window's end. A real CLI process with a 3 s deadline stops
 * cleanly: exit 0, `interrupted` with DEADLINE_REACHED, what was complete
 * committed; the next run (the same data, no limit in the way) resumes and the
 * output equals the API.
 */

let env: SyncEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('run deadline', () => {
  it('ends a run held by the rate limit cleanly at its deadline; the next run finishes it', async () => {
    env = await startSyncEnv({ seed: 43, conversations: 40 });
    const e = env;
    // The same data behind a limiter of 30 requests per 60 s window.
    const limited = await startSandbox({ port: 0, seed: 43, conversations: 40, rateLimit: 30, rateWindowSeconds: 60 });
    try {
      const source = { base_url: limited.baseUrl, rate_limit: { requests_per_minute: 30, concurrency: 4 } };
      const path = e.configFile('deadline.json', { source, run: { deadline_seconds: 3 } });
      const started = Date.now();
      const result = await runCli(['sync', '--config', path]);
      expect(result.code, result.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(result.stdout).toContain(' interrupted in ');
      expect(result.stdout).toContain(
        'warning DEADLINE_REACHED: the run reached its deadline (run.deadline_seconds: 3)',
      );
      expect(result.stdout).toContain('interrupted: what was complete is committed; the next run resumes');
      const committed = readTables(e.outDir).conversations?.length ?? 0;
      expect(committed).toBeGreaterThan(0);

      // A run without a deadline (against the same data, unlimited) resumes and finishes.
      const next = await runCli(['sync', '--config', e.configFile('next.json')]);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toContain(' succeeded in ');
    } finally {
      await limited.close();
    }
    expectOutputEqualsApi(e, { trashShown: true });
  });
});
