import { describe, expect, it } from 'vitest';
import { WindowLength } from '../../../src/api/queue/rate-limit/window-length.js';

describe('WindowLength', () => {
  it('adopts a learned length only once the bounds pin it to about a second', () => {
    const length = new WindowLength(undefined);
    // A reset seen between two requests 11 s apart: somewhere in (1.8 s, 13 s].
    length.learn(1_800, 13_000);
    expect([length.source, length.ms, length.knownMs]).toEqual(['assumed', 60_000, undefined]);
    // A probe's Retry-After against a known opening: (1.9 s, 2.1 s].
    length.learn(1_900, 2_100);
    expect([length.source, length.ms]).toEqual(['learned', 2_000]);
  });

  it('replaces bounds that contradict the earlier ones (the deployment changed), and never a configured length', () => {
    const learned = new WindowLength(undefined);
    learned.learn(9_500, 10_050);
    expect(learned.ms).toBe(10_000);
    learned.learn(19_400, 20_100);
    expect(learned.ms).toBe(20_000);
    const configured = new WindowLength(60_000);
    configured.learn(9_500, 10_050);
    expect([configured.source, configured.ms]).toEqual(['configured', 60_000]);
  });
});
