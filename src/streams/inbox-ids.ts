import { idOf } from './id-of.js';
import type { StreamContext } from './types.js';

/**
 * Ids of every inbox, in listing order; undefined when the run was aborted
 * while they were read (the stream then ends quietly, as every stream does on
 * abort). Tags and reports are per inbox; the runner hands streams an api whose
 * inbox list is read once per run, so this costs no request after the inboxes
 * stream (or the first caller) read it.
 */
export async function inboxIds(ctx: StreamContext): Promise<string[] | undefined> {
  const ids: string[] = [];
  try {
    for await (const inbox of ctx.api.listInboxes({ signal: ctx.signal })) {
      const id = idOf(inbox);
      if (id !== undefined && !ids.includes(id)) ids.push(id);
    }
  } catch (error) {
    if (ctx.signal.aborted) return undefined;
    throw error;
  }
  return ids;
}
