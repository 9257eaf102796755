import { canonicalHash } from '../canonical-json.js';

/**
 * A short stable content hash: sha256 of the canonical JSON, base64url, cut to
 * `length` characters (16 = 96 bits by default). It only ever decides "did this
 * key's content change since last run", so a collision would need two different
 * contents of the same key to agree on 96 bits.
 *
 * @default length 16
 */
export function fingerprint(value: unknown, length = 16): string {
  return canonicalHash(value, 'base64url').slice(0, length);
}
