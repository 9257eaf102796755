import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../../../src/api/queue/linked-signal.js';
import { Harness } from './queue-harness.js';

/** The size of Node's internal set of signals made from `signal` by AbortSignal.any() (0 where there is none). */
function dependants(signal: AbortSignal): number {
  const key = Object.getOwnPropertySymbols(signal).find((k) => k.description === 'kDependantSignals');
  return key ? ((signal as unknown as Record<symbol, Set<unknown> | undefined>)[key]?.size ?? 0) : 0;
}

describe('linkedSignal', () => {
  it('aborts with the reason of whichever source aborts, also one aborted already', () => {
    for (const which of [0, 1]) {
      const sources = [new AbortController(), new AbortController()];
      const { signal } = linkedSignal(sources[0]!.signal, sources[1]!.signal);
      sources[which]!.abort(new Error(`source ${which}`));
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe(`source ${which}`);
    }
    const done = new AbortController();
    done.abort('before');
    expect(linkedSignal(new AbortController().signal, done.signal).signal.reason).toBe('before');
  });

  it('leaves nothing on the sources once unlinked, and no longer follows them', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal(a.signal, b.signal);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    link.unlink();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    a.abort();
    expect(link.signal.aborted).toBe(false);
  });

  it('lets a caller signal used by a thousand requests of the queue end with nothing held on it', async () => {
    const h = new Harness({ requestsPerMinute: 100_000 });
    const caller = new AbortController();
    await Promise.all(Array.from({ length: 1000 }, (_, i) => h.send(`r${i}`, { signal: caller.signal })));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    // What AbortSignal.any() would have left on Node 20: one entry per request, never removed.
    expect(dependants(caller.signal)).toBe(0);
  });
});
