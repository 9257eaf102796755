/**
 * Pacing benchmark scenarios of a new user's first sync (sandbox --seed 4
 * --conversations 400, the default config: requests_per_minute 300,
 * concurrency 4, window not configured), each beside the naive peer and its
 * yardstick, measured in the same run:
 *
 * - default: the default deployment (300 per 60 s), right after `check` (as
 *   the README says to run it), whose requests opened the window. Optimum: the
 *   room the check left, to the end of the window it opened, then whole windows.
 *   Targets ≤ 1.05 × optimum, at most one probe 429 (the window is learned).
 * - learned: deployments of 20 per 2 s, 100 per 10 s and 300 per 60 s, our share
 *   the whole window, the window not configured; each run in a fresh window.
 *   Targets ≤ 1.10 × optimum (the learning included), at most one probe 429.
 * - silent: 300 per 60 s behind a gateway that sends no rate-limit headers and
 *   answers one request in 40 with a 429 that says nothing (sandbox quirks
 *   no-rate-headers,silent-429). Target ≤ 2 × the same sync without those 429s
 *   (quirk no-rate-headers alone) + 10 s.
 * All: never slower than the peer. The last window's part of every optimum is
 * the same sync against an unlimited sandbox (best of three), prorated to the
 * requests of that window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestQueue } from '../../../src/api/queue/request-queue.js';
import { silentLogger } from '../../../src/log.js';
import { startSandbox } from '../../../src/sandbox/start.js';
import { checkJob } from '../../../src/sync/check-job.js';
import { NaivePeerQueue } from './naive-peer.js';
import { KINDS, type Kind, type Row, type Side, side, windowsOf } from './pacing-report.js';
import { benchConfig, timedSync } from './timed-sync.js';

const DATA = { seed: 4, conversations: 400 };
const CONCURRENCY = 4;
type Run = Awaited<ReturnType<typeof timedSync>>;

export const FIRST_SYNC_PARTS = ['default', 'learned', 'silent'] as const;
export type FirstSyncPart = (typeof FIRST_SYNC_PARTS)[number];

/** Temporary directories, removed by cleanup(). */
class Dirs {
  private readonly made: string[] = [];
  make(): string {
    const dir = mkdtempSync(join(tmpdir(), 'hs-bench-first-sync-'));
    this.made.push(dir);
    return dir;
  }
  cleanup(): void {
    for (const dir of this.made.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** The queue of a kind: ours with the given options (defaults: the default config's), or the peer. */
function queueOf(kind: Kind, options: { requestsPerMinute?: number } = {}): RequestQueue {
  if (kind === 'peer') return new NaivePeerQueue(CONCURRENCY);
  const rate = benchConfig('http://127.0.0.1/v1', tmpdir()).source.rate_limit;
  return new RequestQueue({
    requestsPerMinute: options.requestsPerMinute ?? rate.requests_per_minute,
    concurrency: rate.concurrency,
    rateWindowSeconds: rate.window_seconds,
  });
}

function sideOf(run: Run, optimum: number): Side {
  return {
    ...side(run.wallMs, optimum, run.stats.requests, run.stats.rateLimited),
    probe_429s: run.stats.rateLimitProbes ?? 0,
    learning_429s: run.stats.rateLimitLearning ?? 0,
  };
}

/** The same sync with no limit in the way, best of three: the optimum's last window, prorated. */
async function freeSyncMs(dirs: Dirs): Promise<number> {
  const free = await startSandbox({ ...DATA, rateLimit: 100_000_000 });
  try {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const queue = new RequestQueue({ requestsPerMinute: 100_000, concurrency: CONCURRENCY });
      best = Math.min(best, (await timedSync(free.baseUrl, dirs.make(), queue)).wallMs);
    }
    return best;
  } finally {
    await free.close();
  }
}

/** The default deployment and config, right after a check whose requests opened the window. */
async function defaultAfterCheck(dirs: Dirs, freeMs: number): Promise<Row> {
  const limit = 300;
  const sandbox = await startSandbox(DATA);
  const sides = {} as Record<Kind, Side>;
  const optimumOf = {} as Record<Kind, number>;
  let n = 0;
  try {
    for (const kind of KINDS) {
      sandbox.clock.advance(60_000);
      const dir = dirs.make();
      const before = sandbox.stats().total;
      const checkedAt = performance.now();
      await checkJob(benchConfig(sandbox.baseUrl, dir), silentLogger());
      const checkS = (performance.now() - checkedAt) / 1000;
      const room = limit - (sandbox.stats().total - before);
      const run = await timedSync(sandbox.baseUrl, dir, queueOf(kind));
      n = run.needed;
      // The check opened the window (at the latest when it began): what it left, to that window's
      // end, then whole windows, then the last one's requests at full speed.
      if (n <= room) optimumOf[kind] = freeMs / 1000;
      else {
        const { waits, last } = windowsOf(n - room, limit);
        optimumOf[kind] = 60 - checkS + waits * 60 + (freeMs / 1000) * (last / n);
      }
      sides[kind] = sideOf(run, optimumOf[kind]);
    }
  } finally {
    await sandbox.close();
  }
  return {
    scenario: 'first sync after check',
    window_s: 60,
    limit,
    n,
    optimum_s: optimumOf.ours,
    ...sides,
    target: { ratio: 1.05, max429: 1 },
  };
}

/** A deployment of `limit` per `windowS`, the window not configured, our share the whole window. */
async function learnedWindow(dirs: Dirs, freeMs: number, windowS: number, limit: number): Promise<Row> {
  const sandbox = await startSandbox({ ...DATA, rateLimit: limit, rateWindowSeconds: windowS });
  const runs = {} as Record<Kind, Run>;
  let learned: unknown;
  try {
    for (const kind of KINDS) {
      sandbox.clock.advance(windowS * 1000);
      const queue = queueOf(kind, { requestsPerMinute: (limit * 60) / windowS });
      runs[kind] = await timedSync(sandbox.baseUrl, dirs.make(), queue);
      if (kind === 'ours') learned = queue.rateWindow();
    }
  } finally {
    await sandbox.close();
  }
  const n = runs.ours.needed;
  const { waits, last } = windowsOf(n, limit);
  const optimum = waits * windowS + (freeMs / 1000) * (last / n);
  return {
    scenario: 'first sync, window learned',
    window_s: windowS,
    limit,
    n,
    optimum_s: optimum,
    ours: sideOf(runs.ours, optimum),
    peer: sideOf(runs.peer, optimum),
    target: { ratio: 1.1, max429: 1 },
    learned_window: learned,
  };
}

/** Behind a gateway without rate-limit headers that refuses one request in 40 with a 429 that says nothing. */
async function silentGateway(dirs: Dirs): Promise<Row> {
  const silent = await startSandbox({ ...DATA, quirks: 'no-rate-headers,silent-429' });
  const quiet = await startSandbox({ ...DATA, quirks: 'no-rate-headers' });
  let without: Run;
  const runs = {} as Record<Kind, Run>;
  try {
    without = await timedSync(quiet.baseUrl, dirs.make(), queueOf('ours'));
    for (const kind of KINDS) {
      silent.clock.advance(60_000);
      runs[kind] = await timedSync(silent.baseUrl, dirs.make(), queueOf(kind));
    }
  } finally {
    await silent.close();
    await quiet.close();
  }
  const yardstick = without.wallMs / 1000;
  return {
    scenario: 'first sync, silent 429s',
    window_s: 60,
    limit: 300,
    n: runs.ours.needed,
    optimum_s: yardstick,
    ours: sideOf(runs.ours, yardstick),
    peer: sideOf(runs.peer, yardstick),
    target: { wall_s: 2 * yardstick + 10, max429: undefined },
    without_silent_429s: {
      wall_s: yardstick,
      requests: without.stats.requests,
      rate_limited: without.stats.rateLimited,
    },
  };
}

/** The rows of the parts asked for, in FIRST_SYNC_PARTS order. */
export async function firstSyncScenarios(
  parts: readonly FirstSyncPart[],
  quick: boolean,
): Promise<Record<FirstSyncPart, Row[]>> {
  const dirs = new Dirs();
  const rows: Record<FirstSyncPart, Row[]> = { default: [], learned: [], silent: [] };
  try {
    const freeMs = await freeSyncMs(dirs);
    if (parts.includes('default')) rows.default.push(await defaultAfterCheck(dirs, freeMs));
    if (parts.includes('learned')) {
      const windows: Array<[number, number]> = quick
        ? [[2, 20]]
        : [
            [2, 20],
            [10, 100],
            [60, 300],
          ];
      for (const [windowS, limit] of windows) rows.learned.push(await learnedWindow(dirs, freeMs, windowS, limit));
    }
    if (parts.includes('silent')) rows.silent.push(await silentGateway(dirs));
    return rows;
  } finally {
    dirs.cleanup();
  }
}
