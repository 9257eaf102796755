import { TIE_STEP_MS } from '../deployment/quirks.js';
import type {
  Contact,
  ConversationState,
  CustomField,
  Inbox,
  Message,
  Tag,
  ThreadEvent,
  User,
} from '../model/model.js';
import { ticketNumber, withBigCustomValues } from './big-integers.js';
import type { SandboxStore } from './sandbox-store.js';

/** Wire shapes: exactly the API document's fields; internal fields (organizationId, addressId) stay home. */

export function userWire(u: User) {
  return {
    id: u.id,
    name: u.name,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    avatar: u.avatar,
    phone: u.phone,
    role: u.role,
    status: u.status,
    presence: u.presence,
    extra: u.extra,
  };
}

export function inboxWire(b: Inbox, folderCounts: Record<string, number>) {
  return {
    id: b.id,
    name: b.name,
    business_hour_enabled: b.business_hour_enabled,
    off_hours_auto_reply_subject: b.off_hours_auto_reply_subject,
    off_hours_auto_reply_body: b.off_hours_auto_reply_body,
    folder_counts: folderCounts,
    agents: b.agents,
    teams: b.teams,
    satisfaction_ratings: b.satisfaction_ratings,
  };
}

export function tagWire(t: Tag) {
  return { id: t.id, name: t.name, color: t.color };
}

export function contactWire(c: Contact, conversationsCount: number) {
  const { organizationId: _org, ...fields } = c;
  return { ...fields, conversations_count: conversationsCount };
}

function contactWireSigned(store: SandboxStore, index: number) {
  const contact = contactWire(store.contacts.get(index), store.contacts.conversationsCount(index));
  return store.quirks.has('volatile-views') ? { ...contact, avatar: store.signedUrl(contact.avatar) } : contact;
}

export function customFieldWire(f: CustomField) {
  return { ...f };
}

/** The embedded last_message follows the Message table, which has no attachments field. */
function embeddedMessage(m: Message) {
  const { attachments: _a, ...fields } = m;
  return fields;
}

/** An actor: volatile-views adds a signed avatar URL that changes on every read. */
function actorWire(store: SandboxStore | undefined, actor: ThreadEvent['actor']) {
  if (!store?.quirks.has('volatile-views') || actor.id === null) return actor;
  return { ...actor, avatar: store.signedUrl(`https://avatars.example/${actor.type}s/${actor.id}.png`) };
}

export function threadEventWire(e: ThreadEvent, store?: SandboxStore) {
  return { event_type: e.event_type, event: e.event, actor: actorWire(store, e.actor), extra: e.extra };
}

/** created-at-ties: created_at cut to a 30-day step, so many conversations share it. */
export function wireCreatedAt(store: SandboxStore, ms: number): number {
  return store.quirks.has('created-at-ties') ? Math.floor(ms / TIE_STEP_MS) * TIE_STEP_MS : ms;
}

/** loose-types: integers as strings, booleans as 0/1, as a loosely typed backend serializes them. */
function loosen(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (typeof value === 'boolean') out[key] = value ? 1 : 0;
    else if ((typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint')
      out[key] = String(value);
    else out[key] = value;
  }
  return out;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Conversation list item: exactly the API document's Conversation table (no is_read, contact_id...). */
export function conversationWire(store: SandboxStore, s: ConversationState): Record<string, unknown> {
  const item = strictConversationWire(store, s);
  return store.quirks.has('loose-types') ? loosen(item) : item;
}

function strictConversationWire(store: SandboxStore, s: ConversationState) {
  const messages = s.events.filter((e) => e.event !== null);
  const last = messages[messages.length - 1];
  const agents: string[] = [];
  for (const e of messages)
    if (e.actor.type === 'user' && e.actor.id && !agents.includes(e.actor.id)) agents.push(e.actor.id);
  const fieldKeys = new Set(store.customFields(s.inboxId).map((f) => f.key));
  const values = Object.fromEntries(Object.entries(s.customFieldValues).filter(([k]) => fieldKeys.has(k)));
  return {
    id: s.id,
    inbox_id: s.inboxId,
    ticket_id: ticketNumber(store, s),
    has_attachment: messages.some((e) => (e.event?.attachments.length ?? 0) > 0),
    has_inline_attachment: s.hasInlineAttachment,
    is_draft: false,
    is_scheduled: false,
    is_snoozed: s.snoozedUntil !== null && s.snoozedUntil > store.now(),
    active: s.deletedAt === null && !s.isSpam,
    subject: s.subject,
    updated_subject: s.updatedSubject,
    status: s.status,
    is_spam: s.isSpam,
    priority: s.priority,
    assignable_type: s.assigneeId === null ? null : 'user',
    assignable_id: s.assigneeId,
    created_at: iso(wireCreatedAt(store, s.createdAt)),
    updated_at: iso(s.updatedAt),
    deleted_at: iso(s.deletedAt),
    closed_at: iso(s.closedAt),
    excerpt: last?.event?.excerpt ?? null,
    messages_count: messages.length,
    last_message_created_at: last?.event?.created_at ?? null,
    intended_inbox_address_id: store.world.inboxes.find((b) => b.id === s.inboxId)?.addressId ?? null,
    agents,
    contact: contactWireSigned(store, s.contactIndex),
    last_message: last?.event ? embeddedMessage(last.event) : null,
    custom_field_values: withBigCustomValues(store, s, values),
    viewer_id: s.viewerId,
    viewed_at: s.viewedAt,
    last_message_by: last?.actor.type ?? null,
  };
}

/** ConversationView (fields not shown by the API document): the list item plus `tags` (tag ids). */
export function conversationViewWire(store: SandboxStore, s: ConversationState) {
  return { ...conversationWire(store, s), tags: s.tags.filter((id) => store.tagExists(id)) };
}
