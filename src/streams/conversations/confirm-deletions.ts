import type { ApiObject } from '../../api/index.js';
import { isForbidden, isUnreadable } from '../api-error-status.js';
import { mapInOrder } from '../map-in-order.js';
import type { Emit } from '../types.js';
import { conversationDeletion, type ScanSettings } from './process-conversation.js';

async function confirm(s: ScanSettings, id: string): Promise<Emit[]> {
  let found: ApiObject | null;
  try {
    found = await s.ctx.api.getConversation(id, { signal: s.signal });
  } catch (error) {
    if (s.signal.aborted) return [];
    // 403 proves nothing about existence: keep it, say so, ask again next run.
    if (isForbidden(error)) {
      s.ctx.metrics?.count('forbidden_skipped');
      const message = `conversation ${id}: not listed and its view answered 403 (no access); kept, retried next run`;
      return [{ kind: 'warning', code: 'CONVERSATION_FORBIDDEN', message }];
    }
    // An unreadable view proves nothing either.
    if (isUnreadable(error)) {
      s.ctx.metrics?.count('unreadable_skipped');
      const message = `conversation ${id}: not listed and its view stayed unreadable after the retries; kept, retried next run`;
      return [{ kind: 'warning', code: 'CONVERSATION_UNREADABLE', message }];
    }
    throw error;
  }
  if (found === null) {
    const { rows, changes } = conversationDeletion(s, id);
    return rows.length === 0 && changes.length === 0 ? [] : [{ kind: 'batch', rows, changes }];
  }
  // Present: the listing skipped it (offset pages shift when rows before it are
  // deleted mid-scan). Its state stays as it is and the next complete listing
  // decides: the single-conversation view is not the list item (fields differ),
  // so fingerprinting it here would rewrite the row and refetch the thread twice.
  // Said, so an operator knows a change of it may wait one run.
  const message = `conversation ${id}: not listed though its view answered (pages shifted during the scan); kept, read by the next run`;
  return [{ kind: 'warning', code: CONVERSATION_NOT_LISTED, message }];
}

/** Warning code of a conversation the listing skipped but the API still shows. */
export const CONVERSATION_NOT_LISTED = 'CONVERSATION_NOT_LISTED';

/**
 * Conversations committed in state but absent from a COMPLETE listing are only
 * suspects: absence alone proves nothing (docs/streams.md). Each one costs one
 * GET /conversation/{id}: 404 → tombstones for it and its thread rows, and its
 * state is deleted; found → left as it is until the next complete listing, with a
 * `CONVERSATION_NOT_LISTED` warning.
 */
export function confirmDeletions(s: ScanSettings, suspects: Iterable<string>): AsyncIterable<Emit[]> {
  return mapInOrder(suspects, (id) => confirm(s, id), { concurrency: s.settings.rate.concurrency });
}
