import { describe, expect, it } from 'vitest';
import { type CronScheduler, startDaemon } from '../../../src/daemon/daemon.js';
import { silentLogger } from '../../../src/log.js';

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
        },
        push: async () => {
          pushRuns++;
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
          new Promise<void>((resolve) => {
            started += 1;
            signal.addEventListener('abort', () => {
              sawAbort = true;
              setTimeout(() => {
                finished = true;
                resolve();
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
});
