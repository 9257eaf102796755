import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-run.js';
import { type SyncEnv, startSyncEnv } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 12, conversations: 40 });
});
afterAll(async () => {
  await env?.sandbox.close();
});

describe('helpdesk-sync daemon', () => {
  it('runs sync and push on their cron schedules, then stops cleanly on SIGTERM', async () => {
    const path = env.configFile('daemon.json', {
      source: { rate_limit: { requests_per_minute: 100000 } },
      reports: { lookback_days: 0 },
      // node-cron's six-field form: every second, so the test sees several ticks.
      schedule: { sync: '* * * * * *', push: '* * * * * *' },
      push: { holidays: 'config/holidays.yaml' },
    });
    const manifests = () => {
      try {
        return readdirSync(join(env.outDir, '_manifests')).length;
      } catch {
        return 0;
      }
    };
    const holidayWrites = () => env.sandbox.stats().by_route['POST /v1/holidays']?.['201'] ?? 0;
    let timer: NodeJS.Timeout | undefined;
    let log = '';
    const result = await runCli(['daemon', '--config', path], {
      onStart: (child) => {
        // Stopped once a push job has finished: the example file holds a dozen
        // holidays, and SIGTERM in the middle of their apply would fail that job.
        child.stderr?.on('data', (c) => {
          log += c;
        });
        timer = setInterval(() => {
          if (manifests() >= 2 && holidayWrites() > 0 && /"event":"daemon\.job_finished","job":"push"/.test(log)) {
            clearInterval(timer);
            child.kill('SIGTERM');
          }
        }, 50);
      },
    });
    clearInterval(timer);
    expect(result.code).toBe(0);
    expect(manifests()).toBeGreaterThanOrEqual(2);
    // The holidays file was applied once; later push ticks found nothing to change.
    const holidays = (await (
      await fetch(`${env.sandbox.baseUrl}/holidays`, { headers: { authorization: 'Bearer sandbox-admin' } })
    ).json()) as Array<{ name: string }>;
    expect(holidays.filter((h) => h.name === 'New Year')).toHaveLength(1);
    expect(result.stderr).toMatch(/"event":"daemon\.job_finished","job":"sync"/);
    expect(result.stderr).toMatch(/"event":"daemon\.job_finished","job":"push"/);
    // Unattended: progress goes to the log as structured events.
    expect(result.stderr).toMatch(/"event":"sync\.progress"/);
  });
});
