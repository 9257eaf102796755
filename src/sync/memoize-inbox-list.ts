import type { ApiObject, CallOptions, HelpdeskApi } from '../api/index.js';

/**
 * The api as streams see it in one run: the inbox list is read once. Inboxes,
 * tags and reports all need it; the second and third reader cost no request.
 * Only a listing read to its end is kept, so a failed or aborted read is simply
 * asked again by the next reader.
 */
export function memoizeInboxList(api: HelpdeskApi): HelpdeskApi {
  let cached: ApiObject[] | undefined;
  async function* listInboxes(options?: CallOptions): AsyncIterable<ApiObject> {
    if (cached) {
      yield* cached;
      return;
    }
    const items: ApiObject[] = [];
    for await (const inbox of api.listInboxes(options)) {
      items.push(inbox);
      yield inbox;
    }
    cached = items;
  }
  return new Proxy(api, {
    get(target, property) {
      if (property === 'listInboxes') return listInboxes;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
