import { BEYOND_INT64_TICKET, BIG_TICKET_BASE } from '../deployment/quirks.js';
import type { ConversationState } from '../model/model.js';
import type { SandboxStore } from './sandbox-store.js';

const chosen = new WeakMap<SandboxStore, number | undefined>();

/**
 * big-integers: the conversation whose ticket number is beyond 64 bits, the
 * first organization's oldest, chosen once per store.
 */
export function beyondInt64Index(store: SandboxStore): number | undefined {
  if (!store.quirks.has('big-integers')) return undefined;
  if (chosen.has(store)) return chosen.get(store);
  const org = store.world.organizations[0]!.id;
  let index: number | undefined;
  for (let i = 0; i < store.table.count && index === undefined; i++) {
    if (store.conversations.exists(i) && store.world.inboxes[store.table.inbox[i]!]!.organizationId === org) index = i;
  }
  chosen.set(store, index);
  return index;
}

/**
 * A conversation's `ticket_id` as served: the stored number, or under
 * big-integers 2^53 + 1 + its index (a bigint, written as its exact digits by
 * the reply serializer), and 2^64 + 5 for one conversation.
 */
export function ticketNumber(store: SandboxStore, s: ConversationState): number | bigint {
  if (!store.quirks.has('big-integers')) return s.ticketId;
  return s.index === beyondInt64Index(store) ? BEYOND_INT64_TICKET : BIG_TICKET_BASE + BigInt(s.index);
}

/**
 * big-integers: a conversation's custom field values with integers no double
 * holds nested in them (`legacy_ids`: the largest 64-bit integer less the
 * index, a negative one past −2^53, one past 64 bits), as a number custom field
 * filled by another system would carry them.
 */
export function withBigCustomValues(store: SandboxStore, s: ConversationState, values: Record<string, unknown>) {
  if (!store.quirks.has('big-integers')) return values;
  const i = BigInt(s.index);
  const legacy = [9_223_372_036_854_775_807n - i, -(BIG_TICKET_BASE + i), 123_456_789_012_345_678_901_234n + i];
  return { ...values, legacy_ids: legacy };
}
