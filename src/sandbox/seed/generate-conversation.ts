import { idFor } from '../model/ids.js';
import {
  type Actor,
  type ConversationState,
  PRIORITIES,
  STATUSES,
  type ThreadEvent,
  type User,
} from '../model/model.js';
import { buildMessage } from './build-message.js';
import { seedCustomFieldValues } from './custom-field-values.js';
import type { SeedContext } from './seed-context.js';
import { SEED_END_MS } from './seed-window.js';
import { threadOutline } from './thread-outline.js';

const SYSTEM: Actor = { type: 'system', id: null, name: null };
const MAX_THREAD_MS = 3 * 86_400_000;

export function userActor(user: User): Actor {
  return { type: 'user', id: user.id, name: user.name };
}

/** Event instants: the plan's gaps, scaled down so the thread ends before the seeded window does. */
function eventTimes(createdAt: number, gaps: number[]): number[] {
  const room = Math.max(0, Math.min(MAX_THREAD_MS, SEED_END_MS - createdAt - 60_000));
  const total = gaps.reduce((a, b) => a + b, 0);
  const scale = total > room && total > 0 ? room / total : 1;
  let t = createdAt;
  return gaps.map((gap, k) => {
    if (k > 0) t += Math.floor((gap * scale) / 1000) * 1000;
    return t;
  });
}

/** Inbound messages count as viewed once someone answered after them. */
function markViewed(events: ThreadEvent[]): void {
  let answeredAt: number | null = null;
  for (let k = events.length - 1; k >= 0; k--) {
    const message = events[k]!.event;
    if (message?.direction === 'outbound') answeredAt = events[k]!.at;
    else if (message?.direction === 'inbound' && answeredAt !== null)
      message.viewed_at = new Date(answeredAt).toISOString();
  }
}

/**
 * The full seeded record of conversation `index`: a pure function of (seed, index)
 * and the compact table row, so it can be rebuilt at any time instead of stored.
 */
export function generateConversation(ctx: SeedContext, index: number): ConversationState {
  const { seed, world, table } = ctx;
  const { rng, inbox, subject, channel, tags, steps, gaps } = threadOutline(ctx, index);
  const assignee = table.assignee[index]! >= 0 ? world.users[table.assignee[index]!]! : null;
  const contact = ctx.contact(table.contact[index]!);
  const agents = world.users.filter((u) => inbox.agents.includes(u.id));
  const times = eventTimes(table.createdAt[index]!, gaps);
  const contactActor: Actor = { type: 'contact', id: contact.id, name: contact.name };
  const events: ThreadEvent[] = [];
  let closedAt: number | null = null;
  steps.forEach((step, k) => {
    const at = times[k]!;
    const by = userActor(assignee ?? rng.pick(agents));
    if (step === 'inbound' || step === 'outbound' || step === 'note') {
      const event = buildMessage(seed, { kind: step, ordinal: index * 64 + k, at, inbox, channel });
      const actor = step === 'inbound' ? contactActor : by;
      events.push({ event_type: step === 'note' ? 'note' : 'message', event, actor, extra: {}, at });
    } else if (step === 'assigned') {
      const extra = { assignable_type: 'user', assignable_id: assignee?.id ?? null };
      events.push({ event_type: 'assigned', event: null, actor: SYSTEM, extra, at });
    } else if (step === 'tagged') {
      events.push({ event_type: 'tagged', event: null, actor: by, extra: { added: tags, removed: [] }, at });
    } else if (step === 'spam') {
      events.push({ event_type: 'spam', event: null, actor: by, extra: {}, at });
    } else {
      const to = step === 'closed' ? 'Closed' : 'Pending';
      events.push({ event_type: 'status_changed', event: null, actor: by, extra: { from: 'Active', to }, at });
      if (step === 'closed') closedAt = at;
    }
  });
  markViewed(events);
  const last = events[events.length - 1]!;
  return {
    index,
    id: idFor(seed, 'conversation', index),
    organizationId: inbox.organizationId,
    inboxId: inbox.id,
    ticketId: 1000 + index,
    subject,
    updatedSubject: subject,
    status: STATUSES[table.status[index]!]!,
    priority: PRIORITIES[table.priority[index]!]!,
    isSpam: steps.includes('spam'),
    assigneeId: assignee?.id ?? null,
    contactIndex: table.contact[index]!,
    createdAt: table.createdAt[index]!,
    updatedAt: last.at,
    deletedAt: null,
    closedAt,
    snoozedUntil: null,
    hasInlineAttachment: rng.chance(0.1),
    viewerId: assignee?.id ?? null,
    viewedAt: assignee ? new Date(last.at).toISOString() : null,
    tags,
    customFieldValues: seedCustomFieldValues(
      rng,
      world.customFields.filter((f) => f.inbox_id === inbox.id),
    ),
    events,
  };
}
