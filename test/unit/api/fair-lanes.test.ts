import { describe, expect, it } from 'vitest';
import { FairLanes } from '../../../src/api/queue/fair-lanes.js';
import { RequestQueue } from '../../../src/api/queue/request-queue.js';

/** Enqueues `n` tasks of `lane`, each naming itself when run. */
function fill(lanes: FairLanes, lane: string, n: number, priority = 0) {
  for (let i = 0; i < n; i++) lanes.enqueue(async () => `${lane}${i}`, { lane, priority, id: `${lane}-${i}` });
}

async function drain(lanes: FairLanes, n = Number.POSITIVE_INFINITY): Promise<string[]> {
  const out: string[] = [];
  for (let run = lanes.dequeue(); run && out.length < n; run = out.length < n ? lanes.dequeue() : undefined) {
    out.push(String(await run()));
  }
  return out;
}

describe('FairLanes: waiting requests handed out fairly between accounts', () => {
  it('alternates between lanes of equal weight, whatever their backlog', async () => {
    const lanes = new FairLanes(new Map());
    fill(lanes, 'big', 6);
    fill(lanes, 'small', 2);
    expect(await drain(lanes)).toEqual(['big0', 'small0', 'big1', 'small1', 'big2', 'big3', 'big4', 'big5']);
    expect(lanes.size).toBe(0);
  });

  it('gives a lane of weight 2 two turns for each of a lane of weight 1', async () => {
    const lanes = new FairLanes(new Map([['a', 2]]));
    fill(lanes, 'a', 6);
    fill(lanes, 'b', 3);
    expect(await drain(lanes)).toEqual(['a0', 'b0', 'a1', 'a2', 'b1', 'a3', 'a4', 'b2', 'a5']);
  });

  it('a lane that arrives late starts level with the others: it neither bursts nor waits behind their backlog', async () => {
    const lanes = new FairLanes(new Map());
    fill(lanes, 'big', 10);
    expect(await drain(lanes, 6)).toEqual(['big0', 'big1', 'big2', 'big3', 'big4', 'big5']);
    fill(lanes, 'late', 3);
    expect(await drain(lanes)).toEqual(['late0', 'big6', 'late1', 'big7', 'late2', 'big8', 'big9']);
  });

  it('a higher priority (a retry, a probe) goes first from any lane', async () => {
    const lanes = new FairLanes(new Map());
    fill(lanes, 'a', 2);
    fill(lanes, 'b', 1, 5);
    expect(await drain(lanes)).toEqual(['b0', 'a0', 'a1']);
  });

  it('removes an aborted request by id, and counts what waits', () => {
    const lanes = new FairLanes(new Map());
    fill(lanes, 'a', 3);
    lanes.remove('a-1');
    expect(lanes.size).toBe(2);
    expect(lanes.filter({ lane: 'a' })).toHaveLength(2);
  });
});

describe('RequestQueue lanes', () => {
  it('serves two accounts in turn through one slot, the later one from its first request', async () => {
    const queue = new RequestQueue({ requestsPerMinute: 100_000, concurrency: 1 });
    const order: string[] = [];
    const send = (lane: string, i: number) =>
      queue.request({
        method: 'GET',
        url: `http://127.0.0.1/${lane}/${i}`,
        idempotent: true,
        lane,
        send: async () => {
          order.push(`${lane}${i}`);
          return { status: 200, headers: {}, body: '{}' };
        },
      });
    try {
      const big = Array.from({ length: 6 }, (_, i) => send('big', i));
      const small = Array.from({ length: 2 }, (_, i) => send('small', i));
      await Promise.all([...big, ...small]);
      // big0 took the slot at once; from then on the two lanes alternate, the small one first.
      expect(order).toEqual(['big0', 'small0', 'big1', 'small1', 'big2', 'big3', 'big4', 'big5']);
      // Each lane counts its own requests; the queue counts them all.
      expect([queue.stats('big').requests, queue.stats('small').requests, queue.stats().requests]).toEqual([6, 2, 8]);
      expect(queue.stats('small').byStatus).toEqual({ '200': 2 });
    } finally {
      queue.close();
    }
  });
});
