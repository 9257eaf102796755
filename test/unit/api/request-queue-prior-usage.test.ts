import { afterEach, describe, expect, it } from 'vitest';
import { closeHarnesses, FixedWindowServer, harnessWith, settleAll } from './queue-harness.js';

afterEach(closeHarnesses);

/** Starts of ours per offset from `t0`, in ms: [offset, how many started then]. */
function startsByOffset(starts: Array<{ at: number }>, t0: number): Array<[number, number]> {
  const counts = new Map<number, number>();
  for (const s of starts) counts.set(s.at - t0, (counts.get(s.at - t0) ?? 0) + 1);
  return [...counts.entries()];
}

/**
 * The default deployment (300 per 60 s), the default share (requests_per_minute
 * 300, equal to the server's limit), and a run that starts a second after ten
 * requests of another process (a `check`) opened the window.
 */
function afterACheck(rateWindowSeconds: number | undefined) {
  const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds });
  const server = new FixedWindowServer(300, 60_000);
  h.server = server;
  const t0 = h.clock.now();
  for (let i = 0; i < 10; i++) server.other(t0 - 1_000);
  return { h, server, t0 };
}

describe('RequestQueue with a share equal to the limit, in a window others used first (fake clock)', () => {
  it('with the window configured: a look of a fifth of the window, the rest of it at once, the next window whole', async () => {
    const { h, server, t0 } = afterACheck(60);
    await settleAll(
      h.clock,
      Array.from({ length: 440 }, (_, i) => h.send(`r${i}`)),
    );
    const byOffset = startsByOffset(h.starts, t0);
    // The look: requests spread (one at a time) while it watches for the others; nobody else sends,
    // so at its end (12 s after the first reply) what is left of the window goes at once.
    const look = byOffset.filter(([at]) => at > 0 && at < 12_000);
    expect(look.every(([, n]) => n === 1)).toBe(true);
    expect(look.length).toBeGreaterThan(50);
    const [lookEnd, burst] = byOffset.find(([at]) => at >= 12_000) as [number, number];
    expect(lookEnd).toBeLessThan(12_200);
    expect(burst).toBe(290 - 4 - look.length);
    // Nothing more until the window's latest end (opened at the latest with our first reply),
    // then the next window is spent at once: no spreading for the windows after.
    expect(byOffset.filter(([at]) => at > lookEnd && at < 60_000)).toEqual([]);
    expect(byOffset.at(-1)).toEqual([60_000, 150]);
    expect(server.perWindow).toEqual([300, 150]);
    expect(server.limited).toBe(0);
  });

  it('with the window unknown: the whole room at once, then its documented end, without a 429', async () => {
    const { h, server, t0 } = afterACheck(undefined);
    await settleAll(
      h.clock,
      Array.from({ length: 440 }, (_, i) => h.send(`r${i}`)),
    );
    // 290 left by the check go at once. A probe's 429 would date this window's end but not teach
    // its length (the check opened it, when is not known): the documented minute from our first
    // reply is waited for instead, a second more than the window needed, no 429.
    expect(startsByOffset(h.starts, t0)).toEqual([
      [0, 290],
      [60_000, 150],
    ]);
    expect(server.perWindow).toEqual([300, 150]);
    expect(h.queue.stats()).toMatchObject({ rateLimited: 0, rateLimitProbes: 0 });
  });

  it('another client still sending is seen during the look, and then shares every window without a 429', async () => {
    const h = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: 60 });
    const server = new FixedWindowServer(300, 60_000);
    h.server = server;
    // The other client spends a third of the budget, one request every 600 ms, from 3 s before us.
    let stop = false;
    let othersLimited = 0;
    const other = async () => {
      while (!stop) {
        if (!server.other(h.clock.now())) othersLimited += 1;
        await h.clock.sleep(600);
      }
    };
    void other();
    await h.clock.run(() => h.clock.now() - Date.parse('2026-07-30T10:00:00Z') >= 3_000);
    const t0 = h.clock.now();
    await settleAll(
      h.clock,
      Array.from({ length: 300 }, (_, i) => h.send(`r${i}`)),
    );
    stop = true;
    expect(othersLimited).toBe(0);
    expect(server.limited).toBe(0);
    // Spread over the windows, not spent at once after the look: no second holds more than 10 of ours.
    const bySecond = new Map<number, number>();
    for (const s of h.starts)
      bySecond.set(Math.floor((s.at - t0) / 1000), (bySecond.get(Math.floor((s.at - t0) / 1000)) ?? 0) + 1);
    expect(Math.max(...bySecond.values())).toBeLessThanOrEqual(10);
  });
});
