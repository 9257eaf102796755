import type { SandboxStore } from './sandbox-store.js';

const chosen = new WeakMap<SandboxStore, number | undefined>();

/**
 * hidden-conversation: the conversation the listings leave out of their pages
 * while meta.total still counts it, as an index that lost one entry while the
 * count comes from elsewhere. It is the middle one (by created_at) of the
 * first organization's conversations, so it sits mid-list in either order
 * once the list is longer than two pages; its view and thread still answer.
 * Chosen once per store.
 */
export function hiddenConversationIndex(store: SandboxStore): number | undefined {
  if (!store.quirks.has('hidden-conversation')) return undefined;
  if (chosen.has(store)) return chosen.get(store);
  const org = store.world.organizations[0]!.id;
  const own: number[] = [];
  for (let i = 0; i < store.table.count; i++) {
    if (store.conversations.exists(i) && store.world.inboxes[store.table.inbox[i]!]!.organizationId === org)
      own.push(i);
  }
  const index = own[Math.floor(own.length / 2)];
  chosen.set(store, index);
  return index;
}

/** A page of conversation indexes as the listings serve it under hidden-conversation. */
export function withoutHidden(store: SandboxStore, indexes: number[]): number[] {
  const hidden = hiddenConversationIndex(store);
  return hidden === undefined ? indexes : indexes.filter((i) => i !== hidden);
}
