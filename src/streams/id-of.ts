import { isPlainObject } from '../plain-object.js';

/** The `id` of an API object as a string key; undefined when it has none (the normalizer rejects such rows). */
export function idOf(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const id = value.id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}
