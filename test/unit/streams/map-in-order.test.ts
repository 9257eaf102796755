import { describe, expect, it } from 'vitest';
import { mapInOrder } from '../../../src/streams/map-in-order.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('mapInOrder', () => {
  it('yields in source order whatever order the work finishes in, mixing sync and async answers', async () => {
    const delays = [30, 1, 15, 0, 5];
    const work = (i: number) =>
      i === 3 ? `sync-${i}` : new Promise<string>((r) => setTimeout(() => r(`async-${i}`), delays[i]));
    expect(await collect(mapInOrder([0, 1, 2, 3, 4], work, { concurrency: 3 }))).toEqual([
      'async-0',
      'async-1',
      'async-2',
      'sync-3',
      'async-4',
    ]);
  });

  it('keeps at most `concurrency` promises in flight; synchronous answers take no slot', async () => {
    let inFlight = 0;
    let peak = 0;
    const gates = Array.from({ length: 12 }, () => deferred<number>());
    const work = (i: number) => {
      if (i % 4 === 3) return i;
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      return gates[i]!.promise.finally(() => {
        inFlight -= 1;
      });
    };
    const run = collect(
      mapInOrder(
        Array.from({ length: 12 }, (_, i) => i),
        work,
        { concurrency: 2 },
      ),
    );
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, 1));
      gates[i]!.resolve(i);
    }
    expect(await run).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(peak).toBe(2);
  });

  it('when the source fails, finishes and yields what it already took, then throws the source error', async () => {
    async function* source() {
      yield 1;
      yield 2;
      throw new Error('listing failed');
    }
    const seen: number[] = [];
    const run = (async () => {
      for await (const v of mapInOrder(source(), async (i) => i * 10, { concurrency: 4 })) seen.push(v);
    })();
    await expect(run).rejects.toThrow('listing failed');
    expect(seen).toEqual([10, 20]);
  });

  it('throws a work error at its turn, without unhandled rejections from later work', async () => {
    const seen: number[] = [];
    const work = async (i: number) => {
      if (i >= 2) throw new Error(`work ${i} failed`);
      return i;
    };
    const run = (async () => {
      for await (const v of mapInOrder([0, 1, 2, 3, 4], work, { concurrency: 4 })) seen.push(v);
    })();
    await expect(run).rejects.toThrow('work 2 failed');
    expect(seen).toEqual([0, 1]);
  });
});
