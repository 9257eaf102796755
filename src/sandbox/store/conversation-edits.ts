import type { Caller } from '../model/caller.js';
import type { Actor, ConversationState, Status, ThreadEvent, ThreadEventType } from '../model/model.js';
import { conflict, notFound } from '../protocol/errors.js';
import type { SandboxStore } from './sandbox-store.js';

export const IN_TRASH_MESSAGE = 'The conversation is in the trash; restore it first.';

export function actorOf(caller: Caller): Actor {
  return { type: 'user', id: caller.user.id, name: caller.user.name };
}

/** Index of a conversation of the caller's organization (live or trashed), else 404. */
export function conversationIndex(store: SandboxStore, caller: Caller, id: string): number {
  const index = store.findConversation(caller.organization.id, id);
  if (index === undefined) throw notFound();
  return index;
}

/** A live conversation to change: 404 when absent or foreign, 409 when it is in the trash. */
export function editLive(store: SandboxStore, caller: Caller, id: string): ConversationState {
  const index = conversationIndex(store, caller, id);
  if (store.conversations.get(index).deletedAt !== null) throw conflict(IN_TRASH_MESSAGE);
  return store.conversations.edit(index);
}

/** Appends a thread event at the sandbox clock and moves updated_at. */
export function appendEvent(
  store: SandboxStore,
  state: ConversationState,
  event: Omit<ThreadEvent, 'at'> & { at?: number },
): ThreadEvent {
  const at = Math.max(event.at ?? store.now(), state.events[state.events.length - 1]?.at ?? 0);
  const full: ThreadEvent = { ...event, at } as ThreadEvent;
  state.events.push(full);
  state.updatedAt = Math.max(state.updatedAt, at);
  return full;
}

export function systemEvent(
  store: SandboxStore,
  state: ConversationState,
  type: ThreadEventType,
  actor: Actor,
  extra: Record<string, unknown>,
): void {
  appendEvent(store, state, { event_type: type, event: null, actor, extra });
}

/**
 * Status transitions (API document: "not shown"; the sandbox's choice):
 * Active ⇄ Pending, Active → Closed, Pending → Closed, Closed → Active (reopen).
 * Closed → Pending is not reachable; staying put always is.
 */
export function reachable(from: Status, to: Status): boolean {
  return from === to || !(from === 'Closed' && to === 'Pending');
}

/** Sets the status with a status_changed event; closed_at follows. No-op when unchanged. */
export function changeStatus(store: SandboxStore, state: ConversationState, to: Status, actor: Actor): void {
  if (state.status === to) return;
  systemEvent(store, state, 'status_changed', actor, { from: state.status, to });
  state.status = to;
  state.closedAt = to === 'Closed' ? store.now() : null;
}

export function changeAssignee(store: SandboxStore, state: ConversationState, userId: string | null, actor: Actor) {
  if (state.assigneeId === userId) return;
  state.assigneeId = userId;
  systemEvent(store, state, 'assigned', actor, {
    assignable_type: userId === null ? null : 'user',
    assignable_id: userId,
  });
}

/** Replaces the tag set with a `tagged` event listing what was added and removed. */
export function changeTags(store: SandboxStore, state: ConversationState, tags: string[], actor: Actor): void {
  const current = state.tags.filter((id) => store.tagExists(id));
  const added = tags.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !tags.includes(id));
  state.tags = [...new Set(tags)];
  if (added.length > 0 || removed.length > 0) systemEvent(store, state, 'tagged', actor, { added, removed });
}

/** Saves the record's listing fields and moves updated_at to now. */
export function commit(store: SandboxStore, state: ConversationState): void {
  state.updatedAt = Math.max(state.updatedAt, store.now());
  store.conversations.save(state);
}
