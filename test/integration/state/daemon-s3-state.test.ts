import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../sync/cli-run.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { ConditionalS3Server } from './support/conditional-s3-server.js';

// State in object storage needs conditional writes: ConditionalS3Server honours them (s3rver does not).
const STATE_KEY = 'state-bucket/daemon/state.sqlite';
const standin = new ConditionalS3Server();
let env: SyncEnv;
let dir: string;

beforeAll(async () => {
  await standin.start();
  env = await startSyncEnv({ seed: 13, conversations: 30 });
  dir = mkdtempSync(join(tmpdir(), 'hs-daemon-s3-'));
});
afterAll(async () => {
  await env?.sandbox.close();
  await standin.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(env.dir, { recursive: true, force: true });
});

describe('the daemon with its state in object storage', () => {
  it('runs sync and apply on schedule, each job resuming from the uploaded state, and plan reads it back', async () => {
    const path = env.configFile('daemon-s3.json', {
      source: { rate_limit: { requests_per_minute: 100000 } },
      reports: { lookback_days: 0 },
      schedule: { sync: '* * * * * *', push: '* * * * * *' },
      push: { holidays: resolve('config/holidays.yaml') },
      state: {
        path: `s3://${STATE_KEY}`,
        s3: { endpoint: standin.endpoint, region: 'us-east-1', force_path_style: true },
      },
    });
    const childEnv = {
      AWS_ACCESS_KEY_ID: 'STANDIN',
      AWS_SECRET_ACCESS_KEY: 'STANDIN',
      AWS_EC2_METADATA_DISABLED: 'true',
      TMPDIR: dir,
    };
    const manifests = () => {
      try {
        return readdirSync(join(env.outDir, '_manifests')).length;
      } catch {
        return 0;
      }
    };
    const pushRuns = () => standin.seen.filter((r) => r.method === 'PUT' && r.key === `${STATE_KEY}.lock`).length;
    const holidayWrites = () => env.sandbox.stats().by_route['POST /v1/holidays']?.['201'] ?? 0;
    let timer: NodeJS.Timeout | undefined;
    const daemon = await runCli(['daemon', '--config', path], {
      env: childEnv,
      cwd: mkdtempSync(join(dir, 'cwd-')),
      onStart: (child) => {
        // The first apply writes every holiday of the example file; stopping the daemon in the
        // middle of it would fail that job, so wait until the daemon says a push job finished.
        let log = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          log += chunk.toString();
        });
        const pushFinished = () => /"event":"daemon\.job_finished","job":"push"/.test(log);
        timer = setInterval(() => {
          // Two syncs and, after the holidays were written, more jobs that each began from S3.
          if (manifests() >= 2 && holidayWrites() > 0 && pushFinished() && pushRuns() >= 5) {
            clearInterval(timer);
            child.kill('SIGTERM');
          }
        }, 50);
      },
    });
    clearInterval(timer);
    expect(daemon.code, daemon.stderr).toBe(0);
    // A failed apply step is reported on stdout: shown with the failure.
    expect(daemon.stderr, daemon.stdout).toMatch(/"event":"daemon\.job_finished","job":"push"/);
    expect(daemon.stderr, daemon.stdout).not.toMatch(/"event":"daemon\.job_failed"/);
    // Applied once: every later apply found the mapping in the state it downloaded.
    const holidays = (await (
      await fetch(`${env.sandbox.baseUrl}/holidays`, { headers: { authorization: 'Bearer sandbox-admin' } })
    ).json()) as Array<{ name: string }>;
    expect(holidays.filter((h) => h.name === 'New Year')).toHaveLength(1);
    expect(standin.get(`${STATE_KEY}.lock`)).toBeUndefined();

    const plan = await runCli(['plan', '--detailed-exitcode', '--config', path], {
      env: childEnv,
      cwd: mkdtempSync(join(dir, 'cwd-')),
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  }, 180_000);
});
