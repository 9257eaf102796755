import { afterEach, describe, expect, it } from 'vitest';
import type { RateSpend } from '../../../src/api/index.js';
import { FakeClock } from './fake-clock.js';
import { closeHarnesses, FixedWindowServer, harnessWith, settleAll } from './queue-harness.js';

afterEach(closeHarnesses);

/**
 * Two processes of one deployment, one after the other, against one limiter: the first sends
 * `first` requests and records what it spent; the second starts `gapMs` after the first's last
 * request, given that record (or none), and sends `second`.
 */
async function twoRuns(o: {
  server: FixedWindowServer;
  first: number;
  second: number;
  gapMs: number;
  carry: boolean;
}): Promise<{ spend: RateSpend | undefined; secondStarts: number[]; secondStart: number; limitedByFirst: number }> {
  const a = harnessWith({ requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: undefined });
  a.server = o.server;
  await settleAll(
    a.clock,
    Array.from({ length: o.first }, (_, i) => a.send(`a${i}`)),
  );
  const spend = a.queue.spend();
  const limitedByFirst = o.server.limited;
  const secondStart = a.clock.now() + o.gapMs;
  const b = harnessWith(
    { requestsPerMinute: 300, concurrency: 4, rateWindowSeconds: undefined, ...(o.carry ? { priorSpend: spend } : {}) },
    new FakeClock(secondStart),
  );
  b.server = o.server;
  await settleAll(
    b.clock,
    Array.from({ length: o.second }, (_, i) => b.send(`b${i}`)),
  );
  return { spend, secondStarts: b.starts.map((s) => s.at - secondStart), secondStart, limitedByFirst };
}

describe('a process that starts inside a window an earlier one spent (fake clock)', () => {
  it('records what it spent: the window it saw open, the room it left, its starts in it', async () => {
    const server = new FixedWindowServer(300, 60_000);
    const { spend } = await twoRuns({ server, first: 250, second: 0, gapMs: 0, carry: true });
    expect(spend).toMatchObject({
      windowMs: 60_000,
      windowSource: 'assumed',
      window: { remaining: 50, sent: 250 },
    });
    expect(spend?.window?.openedAfter).toBeDefined();
  });

  it('paces from what is left: the rest of the window, then its end, no 429 (the 60 s window assumed)', async () => {
    const server = new FixedWindowServer(300, 60_000);
    const { secondStarts } = await twoRuns({ server, first: 250, second: 200, gapMs: 5_000, carry: true });
    expect(server.limited).toBe(0);
    expect(server.perWindow).toEqual([300, 150]);
    // 50 left at once, then nothing until the window the first opened ends (55 s after our start).
    expect(secondStarts.filter((at) => at < 50_000)).toHaveLength(50);
    expect(Math.min(...secondStarts.filter((at) => at >= 50_000))).toBeGreaterThanOrEqual(55_000);
  });

  it('without the record, no 429 either, but the end is not known: the documented minute from its first reply', async () => {
    const server = new FixedWindowServer(300, 60_000);
    const { secondStarts } = await twoRuns({ server, first: 250, second: 200, gapMs: 5_000, carry: false });
    expect(server.limited).toBe(0);
    expect(Math.min(...secondStarts.filter((at) => at >= 50_000))).toBeGreaterThanOrEqual(60_000);
  });

  it('looks with one request into a window the earlier one spent to the last request: its 429 teaches the length', async () => {
    const server = new FixedWindowServer(300, 60_000);
    const { secondStarts } = await twoRuns({ server, first: 300, second: 20, gapMs: 1_000, carry: true });
    // One look, refused until the window's end; learned from the record's opening, no other 429.
    expect(server.limited).toBe(1);
    expect(secondStarts.filter((at) => at < 59_000)).toEqual([0]);
  });

  it('a window the earlier one spent, its length known: nothing starts before its end', async () => {
    const server = new FixedWindowServer(100, 10_000);
    const { secondStarts, limitedByFirst } = await twoRuns({ server, first: 200, second: 20, gapMs: 500, carry: true });
    expect(server.limited).toBe(limitedByFirst);
    expect(secondStarts.filter((at) => at < 1_000)).toEqual([]);
  });

  it('keeps a learned window: the second neither probes nor meets a 429', async () => {
    const server = new FixedWindowServer(100, 10_000);
    const { spend, limitedByFirst } = await twoRuns({ server, first: 250, second: 150, gapMs: 3_000, carry: true });
    // The first learned the window with its one probe.
    expect(limitedByFirst).toBe(1);
    expect(spend).toMatchObject({ windowMs: 10_000, windowSource: 'learned' });
    expect(server.limited).toBe(1);
  });

  it('a record of a window long over changes nothing: the whole budget at once', async () => {
    const server = new FixedWindowServer(300, 60_000);
    const { secondStarts } = await twoRuns({ server, first: 250, second: 200, gapMs: 120_000, carry: true });
    expect(server.limited).toBe(0);
    expect(secondStarts.every((at) => at < 1_000)).toBe(true);
  });
});
