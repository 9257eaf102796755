import type { HelpdeskApi } from '../api/index.js';
import { inboxes } from '../catalog/streams/inboxes.js';
import { isUnreadable } from './api-error-status.js';
import { idOf } from './id-of.js';
import type { Emit, StreamContext } from './types.js';
import { unreadableList } from './unreadable-list.js';

/** Ids of every inbox GET /inboxes lists (the inboxes stream's endpoint), in listing order, each once. */
export async function listInboxIds(api: HelpdeskApi, signal?: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  for await (const inbox of api.read(inboxes.read.endpoint, { signal })) {
    const id = idOf(inbox);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Ids of every inbox, in listing order; undefined when the run was aborted
 * while they were read (the stream then ends quietly, as every stream does on
 * abort). Tags and reports are per inbox; a run reads the inbox list once (the
 * sync serves a repeated read from memory), so this costs no request after the
 * inboxes stream (or the first caller) read it.
 */
export async function inboxIds(ctx: StreamContext): Promise<string[] | undefined> {
  try {
    return await listInboxIds(ctx.api, ctx.signal);
  } catch (error) {
    if (ctx.signal.aborted) return undefined;
    throw error;
  }
}

/**
 * inboxIds for a stream that reads per inbox (tags, reports): the ids, or, when
 * the inbox list stayed unreadable, the warning that skips `stream` this run.
 */
export async function inboxIdsFor(
  ctx: StreamContext,
  stream: string,
): Promise<{ ids: string[] | undefined; skip?: Emit }> {
  try {
    return { ids: await inboxIds(ctx) };
  } catch (error) {
    if (!isUnreadable(error)) throw error;
    return { ids: undefined, skip: unreadableList(ctx, stream, 'the inbox list', error) };
  }
}
