import type { ApiObject } from '../api/types.js';

export function isRecord(value: unknown): value is ApiObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `id` of an API object as a string key; undefined when it has none (the normalizer rejects such rows). */
export function idOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const id = value.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}

const ENVELOPE_KEYS = new Set(['data', 'message', 'success']);

/**
 * A single resource comes wrapped as `{data: <resource>}` (API document,
 * Conventions); the client may or may not have unwrapped it already. Unwraps
 * only when every key is an envelope key, so a resource with its own `data`
 * field is left alone.
 */
export function unwrapData(value: ApiObject): ApiObject {
  if (!isRecord(value.data)) return value;
  for (const key of Object.keys(value)) if (!ENVELOPE_KEYS.has(key)) return value;
  return value.data;
}
