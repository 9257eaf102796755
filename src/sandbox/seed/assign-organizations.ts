import { rngFor } from '../model/random.js';

/**
 * The organization of every conversation index when each organization's size
 * is given: exactly `sizes[k]` indexes hold k, shuffled by the seed, so every
 * organization's conversations spread over the whole seeded year (index order
 * is created_at order) instead of one organization owning its oldest months.
 */
export function assignOrganizations(seed: number, sizes: readonly number[]): Uint8Array {
  const total = sizes.reduce((a, b) => a + b, 0);
  const owner = new Uint8Array(total);
  let at = 0;
  sizes.forEach((size, k) => {
    owner.fill(k, at, at + size);
    at += size;
  });
  // Fisher-Yates, from a draw sequence of its own: the conversations' own draws stay as they are.
  const rng = rngFor(seed, 'organizations');
  for (let i = total - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const held = owner[i]!;
    owner[i] = owner[j]!;
    owner[j] = held;
  }
  return owner;
}
