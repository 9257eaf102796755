import { createHash } from 'node:crypto';
import { jsonScalar } from './exact-json/json-scalar.js';

/**
 * JSON with object keys sorted at every depth, so two objects holding the same
 * data hash the same whatever order the API sent their fields in. Array order is
 * kept (it carries meaning: agents, thread order). `undefined` members are left
 * out like JSON.stringify does; non-finite numbers become null, also like it.
 * A bigint (an integer beyond 2^53, as exact-json reads it) is written as its
 * digits, like a number: the text an API answer holds, so the hash of a value
 * does not depend on whether a double could hold it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return jsonScalar(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * sha256 of the canonical JSON: the one content hash of the connector. Streams
 * cut it short as a change fingerprint, event keys and push's applied hash keep
 * more of it; all of them agree on what "the same content" means.
 */
export function canonicalHash(value: unknown, encoding: 'hex' | 'base64url' = 'hex'): string {
  return createHash('sha256').update(canonicalJson(value)).digest(encoding);
}

/**
 * The sha256 of a text, as hex cut to `length` characters: a short id that is
 * stable across runs and machines (schema versions, keys made from over-long
 * calendar uids). A different value from canonicalHash of the same string,
 * which hashes its JSON form: both kinds are persisted, neither may change.
 */
export function shortTextHash(text: string, length = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
