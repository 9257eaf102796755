import { describe, expect, it } from 'vitest';
import { type CronScheduler, startDaemon } from '../../../src/daemon/daemon.js';
import type { JobResult } from '../../../src/daemon/job-result.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';

const NONE: JobResult = { runs: [] };

function fakeCron() {
  const ticks = new Map<string, () => Promise<void>>();
  const stopped: string[] = [];
  const cron: CronScheduler = {
    schedule(_expr, fn, { name }) {
      ticks.set(name, fn);
      return { stop: () => stopped.push(name) };
    },
  };
  return { cron, ticks, stopped };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('startDaemon', () => {
  it('never overlaps jobs: a tick during a run is skipped, not queued', async () => {
    const { cron, ticks } = fakeCron();
    const gate = deferred();
    let syncRuns = 0;
    let pushRuns = 0;
    const daemon = startDaemon({
      schedules: { sync: '* * * * *', push: '0 * * * *' },
      jobs: {
        sync: async () => {
          syncRuns++;
          await gate.promise;
          return NONE;
        },
        push: async () => {
          pushRuns++;
          return NONE;
        },
      },
      timezone: 'UTC',
      cron,
      logger: silentLogger(),
    });
    const first = ticks.get('sync')!();
    await ticks.get('sync')!();
    await ticks.get('push')!();
    expect(syncRuns).toBe(1);
    expect(pushRuns).toBe(0);
    gate.resolve();
    await first;
    await ticks.get('push')!();
    expect(pushRuns).toBe(1);
    await daemon.stop();
  });

  it('keeps its schedule after a failed run', async () => {
    const { cron, ticks } = fakeCron();
    let runs = 0;
    const daemon = startDaemon({
      schedules: { sync: '* * * * *' },
      jobs: {
        sync: async () => {
          runs++;
          if (runs === 1) throw new Error('boom');
          return NONE;
        },
      },
      timezone: 'UTC',
      cron,
      logger: silentLogger(),
    });
    await ticks.get('sync')!();
    await ticks.get('sync')!();
    expect(runs).toBe(2);
    await daemon.stop();
  });

  it('stop() stops the schedules, aborts the running job and waits for it', async () => {
    const { cron, ticks, stopped } = fakeCron();
    let sawAbort = false;
    let finished = false;
    let started = 0;
    const daemon = startDaemon({
      schedules: { sync: '* * * * *' },
      jobs: {
        sync: (signal) =>
          new Promise<JobResult>((resolve) => {
            started += 1;
            signal.addEventListener('abort', () => {
              sawAbort = true;
              setTimeout(() => {
                finished = true;
                resolve(NONE);
              }, 5);
            });
          }),
      },
      timezone: 'UTC',
      cron,
      logger: silentLogger(),
    });
    void ticks.get('sync')!();
    await daemon.stop();
    expect(stopped).toEqual(['sync']);
    expect(sawAbort).toBe(true);
    expect(finished).toBe(true);
    expect(started).toBe(1);
    // A tick that fires after stop() (a cron callback already queued) starts no new job.
    await ticks.get('sync')!();
    expect(started).toBe(1);
  });

  it("logs a job's outcome over its accounts and hands each account's part on", async () => {
    const { cron, ticks } = fakeCron();
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', destination: { write: (line: string) => lines.push(line) } });
    const finished: unknown[] = [];
    const parts: JobResult[] = [
      {
        runs: [
          { account: 'acme', outcome: 'succeeded' },
          { account: 'globex', outcome: 'failed' },
        ],
      },
      {
        runs: [
          { account: 'acme', outcome: 'failed' },
          { account: 'globex', outcome: 'failed' },
        ],
      },
    ];
    const daemon = startDaemon({
      schedules: { sync: '* * * * *' },
      jobs: { sync: async () => parts.shift() as JobResult },
      timezone: 'UTC',
      cron,
      logger,
      clock: { now: () => 0 },
      onRunFinished: (run) => finished.push(run.ok && run.result.runs.map((r) => r.outcome)),
    });
    await ticks.get('sync')!();
    await ticks.get('sync')!();
    await daemon.stop();
    const events = lines.map((l) => JSON.parse(l)).filter((e) => e.event === 'daemon.job_finished');
    expect(events.map((e) => [e.outcome, e.msg])).toEqual([
      ['partial', 'sync partial in 0ms; accounts: acme succeeded, globex failed'],
      ['failed', 'sync failed in 0ms; accounts: acme failed, globex failed'],
    ]);
    expect(finished).toEqual([
      ['succeeded', 'failed'],
      ['failed', 'failed'],
    ]);
  });

  it("says one line per run in its human log: outcome, duration, rows, requests; the run's own events stay JSON", async () => {
    const { cron, ticks } = fakeCron();
    const human: string[] = [];
    const logger = createLogger({
      level: 'info',
      format: 'human',
      humanLevel: 'info',
      writeLine: (l) => human.push(l),
    });
    let t = 0;
    const summary = (rows: number, requests: number) =>
      ({
        tables: {
          conversations: { rows, tombstones: 0, rejected: 0 },
          messages: { rows: 2 * rows, tombstones: 1, rejected: 0 },
        },
        requests: { requests, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 },
      }) as unknown as SyncSummary;
    const daemon = startDaemon({
      schedules: { sync: '* * * * *' },
      jobs: {
        sync: async () => {
          // What a sync logs of itself at info: its manifest and its summary (as syncJob does).
          logger.info({ event: 'output.manifest', key: '_manifests/r.json', files: 12 }, 'manifest written');
          logger.info({ event: 'sync.summary', summary: summary(427, 565) }, 'sync finished');
          t += 60_000;
          return { runs: [{ outcome: 'succeeded', summary: summary(427, 565) }] };
        },
      },
      timezone: 'UTC',
      cron,
      logger,
      clock: { now: () => t },
    });
    human.length = 0;
    await ticks.get('sync')!();
    await daemon.stop();
    expect(human).toEqual(['info: sync succeeded in 1m00s: 1281 rows written, 565 requests']);
  });
});
