import { afterEach, describe, expect, it } from 'vitest';
import { closeHarnesses, FixedWindowServer, harnessWith, settleAll } from './queue-harness.js';

afterEach(closeHarnesses);

const T0 = Date.parse('2026-07-30T10:00:00Z');

describe('RequestQueue after another client on the IP stops (fake clock)', () => {
  it('takes the whole window back within a window or two, instead of keeping the pace it measured', async () => {
    const h = harnessWith({ requestsPerMinute: 600, concurrency: 4, rateWindowSeconds: 10 });
    const server = new FixedWindowServer(100, 10_000);
    h.server = server;
    // Another client spends most of each window, fast, for the first 20 s, then stops.
    const other = async () => {
      while (h.clock.now() < T0 + 20_000) {
        server.other(h.clock.now());
        await h.clock.sleep(60);
      }
    };
    void other();
    await settleAll(
      h.clock,
      Array.from({ length: 500 }, (_, i) => h.send(`r${i}`)),
    );
    // Once it is gone, windows carry our full share again: after a window of fading, 100 a window.
    const perWindow = server.perWindow;
    expect(perWindow.slice(4, -1).every((n) => n >= 95)).toBe(true);
    // 500 requests: about 70 in the two shared windows, then the rest at 100 a window.
    expect(h.clock.now() - T0).toBeLessThanOrEqual(80_000);
  });
});
