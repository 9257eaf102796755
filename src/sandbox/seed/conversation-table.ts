import { rngFor } from '../model/random.js';
import { type ContactLayout, FIRST_ORG_SHARE } from './contact-layout.js';
import { SEED_END_MS, SEED_SPAN_MS } from './seed-window.js';
import type { World } from './world.js';

export const FLAG_REMOVED = 1;
export const FLAG_TRASHED = 2;
export const FLAG_SPAM = 4;

/** Status and priority codes used in the typed arrays (index into STATUSES / PRIORITIES). */
export const STATUS_ACTIVE = 0;
export const STATUS_PENDING = 1;
export const STATUS_CLOSED = 2;

/**
 * The compact, always-current summary of every conversation: what listing,
 * filtering and sorting need, in typed arrays (a few dozen bytes per
 * conversation, so 200 000 conversations cost a few MB). Index order is
 * created_at order. Full records (thread events...) are generated on demand.
 */
export class ConversationTable {
  readonly createdAt: Float64Array;
  readonly inbox: Uint16Array;
  readonly status: Uint8Array;
  readonly priority: Uint8Array;
  /** Index into world.users, -1 when unassigned. */
  readonly assignee: Int32Array;
  readonly contact: Uint32Array;
  readonly flags: Uint8Array;

  constructor(readonly count: number) {
    this.createdAt = new Float64Array(count);
    this.inbox = new Uint16Array(count);
    this.status = new Uint8Array(count);
    this.priority = new Uint8Array(count);
    this.assignee = new Int32Array(count);
    this.contact = new Uint32Array(count);
    this.flags = new Uint8Array(count);
  }
}

function weighted(r: number, weights: readonly number[]): number {
  let acc = 0;
  for (let k = 0; k < weights.length; k++) {
    acc += weights[k] ?? 0;
    if (r < acc) return k;
  }
  return weights.length - 1;
}

/**
 * Fills the table from (seed, index): inbox, created_at (increasing with the
 * index), status, priority, people. The organization is drawn (organization 1
 * with FIRST_ORG_SHARE, else 2) unless `owner` gives it per index
 * (assign-organizations.ts); the draw is made either way, so every later draw
 * of a conversation is the same in both cases.
 */
export function buildConversationTable(
  seed: number,
  world: World,
  count: number,
  layout: ContactLayout,
  owner?: Uint8Array,
) {
  const table = new ConversationTable(count);
  const inboxesByOrg = world.organizations.map((o) =>
    world.inboxes.map((inbox, k) => (inbox.organizationId === o.id ? k : -1)).filter((k) => k >= 0),
  );
  const userIndex = new Map(world.users.map((u, k) => [u.id, k]));
  const step = SEED_SPAN_MS / Math.max(1, count);
  for (let i = 0; i < count; i++) {
    const rng = rngFor(seed, 'conversation', i);
    const drawn = rng.chance(FIRST_ORG_SHARE) ? 0 : 1;
    const org = owner ? owner[i]! : drawn;
    const inboxIndex = rng.pick(inboxesByOrg[org] ?? []);
    const inbox = world.inboxes[inboxIndex]!;
    const created = SEED_END_MS - SEED_SPAN_MS + (i + 0.1 + rng.next() * 0.8) * step;
    table.createdAt[i] = Math.floor(created / 1000) * 1000;
    table.inbox[i] = inboxIndex;
    table.status[i] = weighted(rng.next(), [0.25, 0.15, 0.6]);
    table.priority[i] = weighted(rng.next(), [0.15, 0.35, 0.5]);
    table.assignee[i] = rng.chance(0.8) ? (userIndex.get(rng.pick(inbox.agents)) ?? -1) : -1;
    const range = layout.ranges[org]!;
    table.contact[i] = range.start + Math.floor(range.count * rng.next() ** 2);
    table.flags[i] = rng.chance(0.02) ? FLAG_SPAM : 0;
  }
  return table;
}
