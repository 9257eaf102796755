/**
 * The JSON text of an answer body, a bigint written as its exact digits: a
 * deployment's integers beyond 2^53 (the big-integers quirk) go on the wire as
 * the server holds them, as any JSON writer of 64-bit integers does.
 * `JSON.stringify` (fastify's own writer) throws on a bigint, so it writes every
 * body without one, and only a body that holds one is written again here.
 */
export function jsonText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return write(body) ?? 'null';
  }
}

/** One value as JSON.stringify writes it (toJSON, undefined left out of objects, null in arrays), bigints as digits. */
function write(input: unknown): string | undefined {
  const value =
    input !== null && typeof input === 'object' && typeof (input as { toJSON?: unknown }).toJSON === 'function'
      ? (input as { toJSON(): unknown }).toJSON()
      : input;
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const text = write(item);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
