import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../../../src/sandbox/model/clock.js';
import { ORGANIZATION_PLANS } from '../../../../src/sandbox/seed/organization-plans.js';
import { SandboxStore } from '../../../../src/sandbox/store/sandbox-store.js';

const clock = () => createClock(() => new Date('2026-11-20T10:00:00Z'));

function tableHash(store: SandboxStore): string {
  const t = store.table;
  const hash = createHash('sha256');
  for (const a of [t.createdAt, t.inbox, t.status, t.priority, t.assignee, t.contact, t.flags]) {
    hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  return hash.digest('hex');
}

function organizationsOf(store: SandboxStore) {
  const sizes = store.seededSizes();
  return store.world.organizations.map((o, k) => ({
    id: o.id,
    slug: o.slug,
    conversations: sizes[k],
    users: store.users(o.id).map((u) => u.id),
    inboxes: store.inboxes(o.id).map((b) => b.id),
  }));
}

/** The first `count` seeded conversations' ids, contact ids and thread hashes, in index order. */
function conversationsOf(store: SandboxStore, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const state = store.conversations.get(i);
    return {
      id: state.id,
      organizationId: state.organizationId,
      contact: store.contacts.get(state.contactIndex).id,
      record: createHash('sha256').update(JSON.stringify(state)).digest('hex').slice(0, 16),
    };
  });
}

describe('seeded organizations', () => {
  it('without sizes: the same two organizations, ids, split and data as before sizes could be given', () => {
    const store = new SandboxStore({ seed: 7, conversations: 300, clock: clock() });
    // Taken from the sandbox before `organizations` existed (seed 7, 300 conversations).
    expect(organizationsOf(store)).toEqual([
      {
        id: '9ce149ac-3697-4959-8cc9-c3830e8dfa8a',
        slug: 'acme',
        conversations: 257,
        users: [
          '5cb1bd33-9514-4d18-b086-bc545e4a6cd2',
          'a38094e6-0115-4f8b-b9b2-bc54fc8150c8',
          'f3d6c9bc-7c70-49f3-937b-bc549ab9bf43',
          'fa1515e7-4d47-46b9-8dc7-bc5438f0a75b',
          'faa12904-7f75-4a19-bdec-bc54d728ce74',
          '81e2086f-18a8-4ce9-961d-bc54755fe652',
          'c1115bf4-bdb6-4a67-af84-bc5413971f29',
        ],
        inboxes: [
          'c6aec4d2-9d22-4f76-97fd-d57cb1dd7418',
          '57ce464a-801b-4252-a0fc-d57c13a65fb2',
          'e8a531a7-360d-442f-b246-d57cee4c576b',
          '45dad80f-a2ae-4b64-9c7e-d57c50156f63',
        ],
      },
      {
        id: '50b33ffa-1742-4b98-80f8-c38370560a00',
        slug: 'globex',
        conversations: 43,
        users: [
          'a1416bb2-8bbf-4c3b-9639-bc54b1ce37a1',
          '953458a2-d63e-4964-b276-bc546c8e099e',
          '4052d067-5b9a-482f-95d4-bc540ac5d404',
          'b28e9c59-0afb-4a32-82ef-bc54a8fdf08f',
        ],
        inboxes: ['db71cf2b-c212-448c-8d52-d57c38ffe7fe', 'e32208fd-650d-473e-9834-d57c9ac8ff98'],
      },
    ]);
    // Every column of every conversation, the whole world (teammates, inboxes, tags, custom fields) and one full record.
    expect(tableHash(store)).toBe('c37603aacfb47bc53e85cc01ba893167f6869f30b0e3789952d2dfc383850b80');
    expect(createHash('sha256').update(JSON.stringify(store.world)).digest('hex')).toBe(
      '0d487b43a7770ead4a56bf5a69392614a05ddc5159bc3612e1ed4dad29d3a444',
    );
    expect(
      createHash('sha256')
        .update(JSON.stringify(store.conversations.get(150)))
        .digest('hex'),
    ).toBe('d602ec3fc1c3a39d04e1886f777d924ce434243b0eb5c92a4073eb20e4b8b84b');
    expect(store.conversations.get(0).id).toBe('8bed853f-49ea-451d-a52a-dc23f710839c');
    expect(store.conversations.get(299).id).toBe('af942116-0e43-4bd8-a5af-dc23de632554');
    expect(store.contacts.get(store.table.contact[0]!).id).toBe('5845e1df-24be-4c2b-97b9-ba2dcd5f0fd7');
  });

  it('with sizes: exactly that many conversations per organization, each with its own teammates, inboxes and contacts', () => {
    const store = new SandboxStore({ seed: 7, conversations: 0, organizations: [1000, 300, 50, 0], clock: clock() });
    expect(store.world.organizations.map((o) => o.slug)).toEqual(['acme', 'globex', 'initech', 'umbrella']);
    expect(store.seededSizes()).toEqual([1000, 300, 50, 0]);
    expect(store.table.count).toBe(1350);
    for (const org of store.world.organizations) {
      expect(store.users(org.id).some((u) => u.role === 'Account Owner' && u.status === 'active')).toBe(true);
      expect(store.inboxes(org.id).length).toBeGreaterThan(0);
    }
    // A conversation's people and inbox belong to its organization.
    for (let i = 0; i < store.table.count; i++) {
      const state = store.conversations.get(i);
      expect(store.inbox(state.organizationId, state.inboxId)).toBeDefined();
      expect(store.contacts.get(state.contactIndex).organizationId).toBe(state.organizationId);
      if (state.assigneeId !== null) expect(store.user(state.organizationId, state.assigneeId)).toBeDefined();
    }
  });

  it('with sizes: each organization spreads over the whole seeded year, and the same seed gives the same data', () => {
    const sizes = [200, 100, 50];
    const a = new SandboxStore({ seed: 3, conversations: 0, organizations: sizes, clock: clock() });
    const b = new SandboxStore({ seed: 3, conversations: 0, organizations: sizes, clock: clock() });
    expect(conversationsOf(a, 350)).toEqual(conversationsOf(b, 350));
    const other = new SandboxStore({ seed: 4, conversations: 0, organizations: sizes, clock: clock() });
    expect(conversationsOf(other, 20)).not.toEqual(conversationsOf(a, 20));
    const third = a.world.organizations[2]!.id;
    const thirds = conversationsOf(a, 350).filter((c) => c.organizationId === third);
    expect(thirds).toHaveLength(50);
    // Index order is created_at order: the third organization has conversations in the oldest and newest sixths.
    const indexes = conversationsOf(a, 350).flatMap((c, i) => (c.organizationId === third ? [i] : []));
    expect(indexes[0]!).toBeLessThan(350 / 6);
    expect(indexes.at(-1)!).toBeGreaterThan((350 * 5) / 6);
  });

  it('with sizes: the first organizations are built as without them (the world grows at its end)', () => {
    const two = new SandboxStore({ seed: 9, conversations: 10, clock: clock() });
    const eight = new SandboxStore({
      seed: 9,
      conversations: 0,
      organizations: ORGANIZATION_PLANS.map(() => 5),
      clock: clock(),
    });
    expect(eight.world.organizations.slice(0, 2)).toEqual(two.world.organizations);
    for (const org of two.world.organizations) {
      expect(eight.users(org.id)).toEqual(two.users(org.id));
      expect(eight.inboxes(org.id)).toEqual(two.inboxes(org.id));
    }
    expect(new Set(eight.world.organizations.map((o) => o.slug)).size).toBe(8);
    expect(new Set(eight.world.users.map((u) => u.id)).size).toBe(eight.world.users.length);
  });
});
