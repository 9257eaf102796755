import { afterEach, describe, expect, it } from 'vitest';
import { closeHarnesses, FixedWindowServer, harnessWith, settleAll } from './queue-harness.js';

afterEach(closeHarnesses);

/** The generator the cases below were found with: the same seed, the same run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * One run alone on the IP, as a sync makes them: a few requests one after another with pauses,
 * a burst of three windows' worth, then one after another again; every request's way to the
 * server and back takes a random time (now and then a slow one that the replies of later
 * requests overtake). The window is not configured: the queue learns it.
 */
async function syncLikeRun(trial: number): Promise<{ limited: number; learned: number }> {
  const r = lcg(trial * 7919 + 17);
  r();
  r();
  const windowMs = [2_000, 10_000, 60_000][trial % 3] as number;
  const concurrency = [1, 4, 8][Math.floor(trial / 3) % 3] as number;
  const limit = Math.round((windowMs / 1000) * ([10, 5, 20][Math.floor(trial / 9) % 3] as number));
  const requestsPerMinute = [600, 300, 1200, 100][Math.floor(trial / 27) % 4] as number;
  const h = harnessWith({ requestsPerMinute, concurrency, rateWindowSeconds: undefined });
  const server = new FixedWindowServer(limit, windowMs);
  const maxLatency = [2, 20, 200][Math.floor(r() * 3)] as number;
  h.server = {
    hit: () => async () => {
      const there = r() < 0.03 ? r() * 300 : r() * maxLatency;
      const back = r() * maxLatency;
      await h.clock.sleep(there);
      const answer = server.hit(h.clock.now());
      await h.clock.sleep(back);
      return answer;
    },
  };
  // Drawn as the search drew it (no one else sends in these cases).
  if (Math.floor(r() * 3) === 0) r();
  const work = async () => {
    for (let i = 0; i < 6; i++) {
      await h.send(`one-by-one-${i}`);
      if (r() < 0.3) await h.clock.sleep(r() * windowMs * 0.6);
    }
    await Promise.all(Array.from({ length: limit * 3 }, (_, i) => h.send(`burst-${i}`)));
    for (let i = 0; i < 10; i++) {
      await h.send(`tail-${i}`);
      if (r() < 0.3) await h.clock.sleep(r() * windowMs * 0.3);
    }
  };
  await settleAll(h.clock, [work()]);
  return { limited: server.limited, learned: h.queue.rateWindow().ms };
}

// Runs in which replies overtook one another around a reset: read in arrival order, a reply
// counted in the old window looked like a new one's, the window was "learned" at a fraction of a
// second, and every later window met 429s (up to 15 in a run).
const OVERTAKEN = [12, 16, 17, 25, 32, 35, 40, 57, 58, 61, 62, 69, 70, 71, 76, 77, 115, 122, 125, 130, 132, 152];

describe('a learned window costs at most one 429 (the probe), whatever the budget, concurrency and latency', () => {
  it.each(OVERTAKEN)('run %i: one 429 at most, and the window learned is the server’s', async (trial) => {
    const { limited, learned } = await syncLikeRun(trial);
    expect(limited).toBeLessThanOrEqual(1);
    expect(learned).toBe([2_000, 10_000, 60_000][trial % 3]);
  });
});
