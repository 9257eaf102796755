import type { z } from 'zod';

/** The parts of a zod schema's definition read here (zod 4 keeps them on `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  valueType?: z.ZodType;
  values?: unknown[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema with its wrappers (optional, default, prefault, a pipe's input…) taken off. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (;;) {
    const def = defOf(schema);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return schema;
    schema = inner;
  }
}

const field = (value: unknown, key: PropertyKey): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;

/**
 * The object schemas `schema` may be for the value `raw`: itself, or the options
 * of a union (of a discriminated union, the one the value's discriminator picks,
 * so `type: local` is not offered the keys of `type: s3`).
 */
function objectsFor(schema: z.ZodType, raw: unknown): z.ZodType[] {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type !== 'union' || !def.options) return [inner];
  const options = def.options.map(unwrap);
  const tag = def.discriminator;
  if (tag === undefined) return options;
  const picked = options.filter((o) => {
    const literal = defOf(o).shape?.[tag];
    return literal !== undefined && (defOf(unwrap(literal)).values ?? []).includes(field(raw, tag));
  });
  return picked.length > 0 ? picked : options;
}

/**
 * The keys an object of `schema` accepts at `path` (as a zod issue gives it) of
 * the tree `raw`: what an unknown key there may have been meant to be. Empty
 * where the path does not lead to an object of known keys (a record, say).
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[], raw: unknown): string[] {
  let candidates = objectsFor(schema, raw);
  let value = raw;
  for (const key of path) {
    const next: z.ZodType[] = [];
    value = field(value, key);
    for (const candidate of candidates) {
      const def = defOf(candidate);
      const child = def.type === 'object' ? def.shape?.[String(key)] : def.type === 'array' ? def.element : undefined;
      if (child) next.push(...objectsFor(child, value));
    }
    candidates = next;
  }
  return [...new Set(candidates.flatMap((c) => Object.keys(defOf(c).shape ?? {})))];
}
