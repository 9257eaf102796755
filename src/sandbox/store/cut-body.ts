import { jsonText } from '../protocol/json-text.js';
import type { SandboxStore } from './sandbox-store.js';

const served = new WeakMap<SandboxStore, Set<string>>();

/**
 * cut-body: whether this answer is the first for `key` (a conversation's thread
 * in one version), which the route then cuts short, as a proxy or a server
 * killed mid-response does. Every later answer for the same key is whole.
 */
export function cutThisOnce(store: SandboxStore, key: string): boolean {
  if (!store.quirks.has('cut-body')) return false;
  const keys = served.get(store) ?? new Set<string>();
  served.set(store, keys);
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

/** The first half of a JSON text: a 200 whose body stops mid-value. */
export function cutShort(body: unknown): string {
  const text = jsonText(body);
  return text.slice(0, Math.floor(text.length / 2));
}
