import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const RUN_ID = /^\d{8}T\d{6}Z-[a-z0-9]{6}$/;

/**
 * A run id that sorts by start time: `20261122T101500Z-k3x9q2` (docs/output.md).
 * The suffix keeps two runs started in the same second apart.
 * @param random returns an integer in [0, n); crypto-random by default (tests pass their own).
 */
export function newRunId(now: Date, random: (n: number) => number = randomInt): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += ALPHABET[random(ALPHABET.length)];
  return `${stamp}-${suffix}`;
}

export function isRunId(text: string): boolean {
  return RUN_ID.test(text);
}
