/**
 * Pacing benchmark scenarios of a first sync with the window left to be learned
 * (no `window_seconds`) while a naive peer (support/naive-peer.ts) runs the same
 * sync on the same IP at the same time: deployments of 20 per 2 s, 100 per 10 s
 * and 300 per 60 s, sandbox --seed 4 --conversations 400, our share the whole
 * window (as in the learned part), each pair in a fresh window.
 *
 * The peer spends the budget as fast as the server answers and sleeps each
 * 429's Retry-After, so it opens windows, empties them and comes back at their
 * ends: the hardest neighbour to learn a window beside. Target: at most one
 * 429 of ours while the window is learned (the probe that finds where a window
 * ends). Once the window is known, a request of ours that races the peer for
 * the last of a window may still meet a 429 (a pause to the window's end, which
 * it would have waited anyway): those are printed, not judged. The time is
 * printed against the pair's optimum (their requests together, whole windows,
 * the last one's part at full speed), not judged: the peer spends a window in
 * a burst, the pace ours leaves it is measured from that burst and fades only
 * once the peer is no longer counted, so when the peer is done ours can lose
 * part of the next window to a peer that is gone (about a window at 60 s,
 * little at 2 and 10 s); nor against the peer's time: the peer takes what it can.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestQueue } from '../../../src/api/queue/request-queue.js';
import { startSandbox } from '../../../src/sandbox/start.js';
import { NaivePeerQueue } from './naive-peer.js';
import { type Row, side, windowsOf } from './pacing-report.js';
import { timedSync } from './timed-sync.js';

const DATA = { seed: 4, conversations: 400 };
const CONCURRENCY = 4;

export const BESIDE_WINDOWS: ReadonlyArray<readonly [number, number]> = [
  [2, 20],
  [10, 100],
  [60, 300],
];

/** Both syncs at once beside each other; `freeMs`: the same sync against an unlimited sandbox (the last window's part). */
async function besidePeer(windowS: number, limit: number, freeMs: number): Promise<Row> {
  const sandbox = await startSandbox({ ...DATA, rateLimit: limit, rateWindowSeconds: windowS });
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'hs-bench-beside-')));
  try {
    sandbox.clock.advance(windowS * 1000);
    const ours = new RequestQueue({ requestsPerMinute: (limit * 60) / windowS, concurrency: CONCURRENCY });
    const started = performance.now();
    const [mine, theirs] = await Promise.all([
      timedSync(sandbox.baseUrl, dirs[0] as string, ours),
      timedSync(sandbox.baseUrl, dirs[1] as string, new NaivePeerQueue(CONCURRENCY)),
    ]);
    const pairMs = performance.now() - started;
    const n = mine.needed + theirs.needed;
    const { waits, last } = windowsOf(n, limit);
    const optimum = waits * windowS + (freeMs / 1000) * (last / mine.needed);
    return {
      scenario: 'first sync beside a naive peer, window learned',
      window_s: windowS,
      limit,
      n,
      optimum_s: optimum,
      ours: {
        ...side(mine.wallMs, optimum, mine.stats.requests, mine.stats.rateLimited),
        probe_429s: mine.stats.rateLimitProbes ?? 0,
        learning_429s: mine.stats.rateLimitLearning ?? 0,
      },
      peer: side(theirs.wallMs, optimum, theirs.stats.requests, theirs.stats.rateLimited),
      target: { max429: undefined, maxLearning429: 1, againstPeer: false, timed: false },
      pair_s: pairMs / 1000,
      learned_window: ours.rateWindow(),
    };
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await sandbox.close();
  }
}

/** The same sync with no limit in the way, best of three: the optimum's last window, prorated. */
async function freeSyncMs(): Promise<number> {
  const free = await startSandbox({ ...DATA, rateLimit: 100_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-beside-free-'));
  try {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      rmSync(dir, { recursive: true, force: true });
      const queue = new RequestQueue({ requestsPerMinute: 100_000, concurrency: CONCURRENCY });
      best = Math.min(best, (await timedSync(free.baseUrl, dir, queue)).wallMs);
    }
    return best;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await free.close();
  }
}

/** One row per window (quick: the 2 s window only). */
export async function besidePeerScenarios(quick: boolean): Promise<Row[]> {
  const freeMs = await freeSyncMs();
  const rows: Row[] = [];
  for (const [windowS, limit] of quick ? BESIDE_WINDOWS.slice(0, 1) : BESIDE_WINDOWS) {
    rows.push(await besidePeer(windowS, limit, freeMs));
  }
  return rows;
}
