/**
 * Compact binary forms of the strings the state keeps millions of: ids
 * (UUID-formatted, API document, Conventions) and base64url fingerprints.
 * Each form is used only when the string round-trips through it exactly;
 * anything else is kept as the string itself, so packing never loses a
 * character and a reader tells the two apart by type alone.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A stored value: bytes (a packed form, or bytes a caller stored) or text. */
export type PackedString = Buffer | string;

/** True for a lower-case, hyphenated UUID: the only spelling that unpacks to itself. */
export function isPackableUuid(value: string): boolean {
  return value.length === 36 && UUID.test(value);
}

/** The 16 bytes of a lower-case UUID; call only when isPackableUuid(value). */
export function uuidBytes(value: string): Buffer {
  return Buffer.from(value.replaceAll('-', ''), 'hex');
}

/** The lower-case, hyphenated UUID of 16 bytes at `offset`. */
export function uuidOf(bytes: Uint8Array, offset = 0): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An id as stored: 16 bytes for a lower-case UUID (36 characters as text), else the text. */
export function packId(id: string): PackedString {
  return isPackableUuid(id) ? uuidBytes(id) : id;
}

/** The id packId() stored. */
export function unpackId(stored: PackedString): string {
  return typeof stored === 'string' ? stored : uuidOf(stored);
}

/**
 * A base64url string whose length is a multiple of 4 (no padding, every
 * character's six bits used) as its bytes: a 16-character fingerprint is 12
 * bytes. Any other string is kept as it is.
 */
export function packBase64url(value: string): PackedString {
  if (value.length === 0 || value.length % 4 !== 0 || !BASE64URL.test(value)) return value;
  return Buffer.from(value, 'base64url');
}

/** The string packBase64url() stored. */
export function unpackBase64url(stored: PackedString): string {
  return typeof stored === 'string' ? stored : stored.toString('base64url');
}
