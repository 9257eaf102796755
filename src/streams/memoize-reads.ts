import type { ApiObject, HelpdeskApi, ListOptions, ReadRequest } from '../api/index.js';

/** A read asked without a query is the same read again: its filled path and paginator. */
function keyOf(request: ReadRequest): string | undefined {
  if (request.query !== undefined) return undefined;
  const path = request.path.replace(/\{(\w+)\}/g, (_, name: string) => `{${name}=${request.params?.[name] ?? ''}}`);
  return `${request.paginator} ${path}`;
}

/**
 * The api as one run sees it: a read without a query (a settings list, GET /me)
 * is sent once per run, and asked again it is served from memory. The inbox list
 * is read by the inboxes stream, tags and reports; GET /me by the manifest's
 * source identity and by any stream that reads it: the second and third reader
 * cost no request. Only a read answered to its end is kept, so a failed or aborted read
 * is simply sent again by the next reader. Reads with a query (a report day) are
 * never kept.
 */
export function memoizeReads(api: HelpdeskApi): HelpdeskApi {
  const kept = new Map<string, ApiObject[]>();
  async function* read(request: ReadRequest, options?: ListOptions): AsyncIterable<ApiObject> {
    const key = keyOf(request);
    const cached = key === undefined ? undefined : kept.get(key);
    if (cached) {
      yield* cached;
      return;
    }
    const items: ApiObject[] = [];
    for await (const item of api.read(request, options)) {
      items.push(item);
      yield item;
    }
    if (key !== undefined) kept.set(key, items);
  }
  return new Proxy(api, {
    get(target, property) {
      if (property === 'read') return read;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
