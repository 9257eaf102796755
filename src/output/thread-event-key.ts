import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal content gives equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Key of a thread event that carries no message (a system event): thread events
 * have no id of their own (API document, "Thread event"), so the key is a hash of
 * what identifies the event. Stable across runs for the same event content, so a
 * re-pulled thread merges onto the same rows. Position is deliberately left out:
 * it shifts when earlier events are inserted (merges), the event does not.
 */
export function threadEventKey(parts: {
  conversation_id: unknown;
  event_type: unknown;
  actor: unknown;
  extra: unknown;
}): string {
  const text = canonicalJson([parts.conversation_id, parts.event_type, parts.actor, parts.extra]);
  return `evt_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
