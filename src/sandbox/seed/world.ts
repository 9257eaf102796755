import { idFor } from '../model/ids.js';
import type { CustomField, Inbox, Organization, Role, Tag, User } from '../model/model.js';
import { type Rng, rngFor } from '../model/random.js';
import { buildCustomFields } from './custom-fields.js';
import { FIRST_NAMES, LAST_NAMES, TAG_NAMES } from './names.js';
import { DEFAULT_ORGANIZATIONS, ORGANIZATION_PLANS } from './organization-plans.js';

/** The small, eagerly built part of the data: organizations, teammates, inboxes, tags, custom fields. */
export interface World {
  organizations: Organization[];
  users: User[];
  inboxes: Inbox[];
  tags: Tag[];
  customFields: CustomField[];
}

function buildUser(seed: number, rng: Rng, index: number, org: Organization, plan: [Role, 'active' | 'invited']): User {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const [role, status] = plan;
  return {
    id: idFor(seed, 'user', index),
    organizationId: org.id,
    name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    email: `${first}.${last}.${index}@${org.slug}.example`.toLowerCase(),
    avatar: status === 'active' ? `https://avatars.example/${org.slug}/${index}.png` : null,
    phone: rng.chance(0.5) ? `+49 30 ${rng.int(1000000, 9999999)}` : null,
    role,
    status,
    presence: status === 'invited' ? null : rng.pick(['online', 'away', 'offline'] as const),
    extra: { preferences: { language: rng.pick(['en', 'de', 'fr']), notifications: { email: rng.chance(0.7) } } },
  };
}

function buildInbox(seed: number, rng: Rng, index: number, org: Organization, name: string, users: User[]): Inbox {
  const active = users.filter((u) => u.status === 'active');
  const agents = active.filter((_, i) => i === 0 || rng.chance(0.75)).map((u) => u.id);
  const hasAutoReply = rng.chance(0.5);
  return {
    id: idFor(seed, 'inbox', index),
    organizationId: org.id,
    name,
    business_hour_enabled: hasAutoReply,
    off_hours_auto_reply_subject: hasAutoReply ? `We are away: ${name}` : null,
    off_hours_auto_reply_body: hasAutoReply
      ? `<p>Thanks for writing to ${name}. We answer on the next working day.</p>`
      : null,
    agents,
    teams: [
      { id: idFor(seed, 'team', index * 2), name: `${name} tier 1` },
      { id: idFor(seed, 'team', index * 2 + 1), name: `${name} tier 2` },
    ],
    satisfaction_ratings: { enabled: rng.chance(0.6), scale: 'emoji', ask_after_hours: rng.int(1, 48) },
    addressId: idFor(seed, 'inbox-address', index),
  };
}

function buildTags(seed: number, rng: Rng, inbox: Inbox, first: number): Tag[] {
  const names = [...TAG_NAMES].sort(() => rng.next() - 0.5).slice(0, 6);
  return names.map((name, k) => ({
    id: idFor(seed, 'tag', first + k),
    inbox_id: inbox.id,
    name,
    color: `#${rng.int(0, 0xffffff).toString(16).padStart(6, '0').toUpperCase()}`,
  }));
}

/**
 * The first `organizations` organizations of ORGANIZATION_PLANS. One draw
 * sequence runs through them in order, and indexes (of users, inboxes, tags,
 * fields) continue from one organization to the next, so organization k comes
 * out the same whatever number of organizations follows it.
 */
export function buildWorld(seed: number, organizations = DEFAULT_ORGANIZATIONS): World {
  const world: World = { organizations: [], users: [], inboxes: [], tags: [], customFields: [] };
  const rng = rngFor(seed, 'world');
  ORGANIZATION_PLANS.slice(0, organizations).forEach((plan, o) => {
    const org: Organization = {
      id: idFor(seed, 'organization', o),
      company: plan.company,
      slug: plan.slug,
      timezone: plan.timezone,
      trash_lifetime_days: 30,
      permissions: {
        conversations: { view: true, reply: true, delete: true },
        settings: { tags: true, users: 'admin', business_hours: 'admin' },
      },
    };
    world.organizations.push(org);
    const first = world.users.length;
    const users = plan.roles.map((r, k) => buildUser(seed, rng, first + k, org, r));
    for (const u of users) world.users.push(u);
    for (const name of plan.inboxes) {
      const inbox = buildInbox(seed, rng, world.inboxes.length, org, name, users);
      world.inboxes.push(inbox);
      for (const tag of buildTags(seed, rng, inbox, world.tags.length)) world.tags.push(tag);
      for (const field of buildCustomFields(seed, inbox, world.customFields.length)) world.customFields.push(field);
    }
  });
  return world;
}
