import type { ApiObject, HelpdeskApi } from '../../api/index.js';
import type { Endpoint } from '../../catalog/stream-definition.js';
import { isNotFound, isUnreadable } from '../api-error-status.js';

export interface PerInboxOptions {
  signal?: AbortSignal;
  /** Before each inbox's list is read: its index in `inboxIds`. */
  onInbox?(index: number): void;
  /** An inbox answered 404: it vanished after it was listed. */
  onGone?(inboxId: string): void;
  /** An inbox's list stayed unreadable after the retries: skipped when this is given, else the error ends the listing. */
  onUnreadable?(inboxId: string, error: unknown): void;
}

/**
 * The items of an endpoint read under every inbox (`{inbox_id}` in its path), in
 * `inboxIds` order, each carrying the inbox_id it was listed under. An inbox that
 * vanished after it was listed holds nothing any more (a deletion signal,
 * docs/streams.md); any other error ends the listing. Ends quietly on abort.
 */
export async function* perInboxItems(
  api: HelpdeskApi,
  endpoint: Endpoint,
  inboxIds: readonly string[],
  options: PerInboxOptions = {},
): AsyncIterable<ApiObject> {
  for (const [index, inboxId] of inboxIds.entries()) {
    options.onInbox?.(index);
    try {
      const request = { ...endpoint, params: { inbox_id: inboxId } };
      for await (const item of api.read(request, { signal: options.signal })) yield { ...item, inbox_id: inboxId };
    } catch (error) {
      if (options.signal?.aborted) return;
      if (options.onUnreadable && isUnreadable(error)) {
        options.onUnreadable(inboxId, error);
        continue;
      }
      if (!isNotFound(error)) throw error;
      options.onGone?.(inboxId);
    }
  }
}
