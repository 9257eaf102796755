import type { SandboxStore } from '../store/sandbox-store.js';

/** odd-retry-after: how long each spell of 429s lasts (sandbox clock). */
export const ODD_SPELL_MS = 1_000;

/**
 * odd-retry-after: the Retry-After each spell carries, in turn: zero, negative,
 * a fraction of a second, absurdly large, an HTTP date already past, garbage.
 */
export function oddRetryAfterValues(nowMs: number): string[] {
  return ['0', '-1', '0.4', '86400000', new Date(nowMs - 60_000).toUTCString(), 'soon'];
}

interface SpellState {
  requests: number;
  spells: number;
  until: number;
}

const states = new WeakMap<SandboxStore, SpellState>();

/**
 * odd-retry-after: whether this /v1 request meets a spell of 429s, and the
 * Retry-After they carry. At every Nth /v1 request (default 50) a spell begins
 * that lasts ODD_SPELL_MS: every request in it, before the limiter counts it, gets
 * `429 {"message": "Too Many Attempts."}` without X-RateLimit-* and with the
 * spell's odd Retry-After (oddRetryAfterValues, in turn). A gateway or a proxy
 * in front of the API that fills the header in its own way.
 */
export function oddRetryAfterNow(store: SandboxStore): string | undefined {
  if (!store.quirks.has('odd-retry-after')) return undefined;
  const state = states.get(store) ?? { requests: 0, spells: 0, until: Number.NEGATIVE_INFINITY };
  states.set(store, state);
  const now = store.nowMs();
  state.requests += 1;
  if (now >= state.until && state.requests % store.quirks.oddRetryAfterEvery === 0) {
    state.spells += 1;
    state.until = now + ODD_SPELL_MS;
  }
  if (now >= state.until) return undefined;
  const values = oddRetryAfterValues(now);
  return values[(state.spells - 1) % values.length];
}
