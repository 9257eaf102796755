import type { Role } from '../model/model.js';

/** What the seed makes of one organization: its name, slug, time zone, teammates' roles and inboxes. */
export interface OrganizationPlan {
  company: string;
  slug: string;
  timezone: string;
  /** The first is the active Account Owner; every plan has an active User too (the `<slug>-agent` token). */
  roles: Array<[Role, 'active' | 'invited']>;
  inboxes: string[];
}

/**
 * Organizations in the order the seed builds them. Without `organizations`
 * the sandbox builds the first two: organization 1 holds the three fixed
 * tokens' users, organization 2 exists to prove 404 for foreign ids. The others
 * serve deployments with several accounts; their time zones differ so that
 * hours and report days fall differently (a half-hour offset, the southern
 * hemisphere).
 */
export const ORGANIZATION_PLANS: readonly OrganizationPlan[] = [
  {
    company: 'Acme Support GmbH',
    slug: 'acme',
    timezone: 'Europe/Berlin',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'active'],
      ['User', 'invited'],
    ],
    inboxes: ['Support', 'Sales', 'Billing', 'Partnerships'],
  },
  {
    company: 'Globex Corporation',
    slug: 'globex',
    timezone: 'America/New_York',
    roles: [
      ['Account Owner', 'active'],
      ['User', 'active'],
      ['User', 'active'],
      ['User', 'invited'],
    ],
    inboxes: ['Help', 'Returns'],
  },
  {
    company: 'Initech LLC',
    slug: 'initech',
    timezone: 'America/Chicago',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'active'],
      ['User', 'invited'],
    ],
    inboxes: ['Support', 'Facilities', 'Reports'],
  },
  {
    company: 'Umbrella Corporation',
    slug: 'umbrella',
    timezone: 'Asia/Tokyo',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'active'],
    ],
    inboxes: ['Customer Care', 'Research', 'Logistics'],
  },
  {
    company: 'Hooli Inc.',
    slug: 'hooli',
    timezone: 'America/Los_Angeles',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'active'],
      ['User', 'active'],
      ['User', 'invited'],
    ],
    inboxes: ['Support', 'Enterprise', 'Developers'],
  },
  {
    company: 'Soylent Foods Ltd',
    slug: 'soylent',
    timezone: 'Europe/London',
    roles: [
      ['Account Owner', 'active'],
      ['User', 'active'],
      ['User', 'active'],
    ],
    inboxes: ['Orders', 'Complaints'],
  },
  {
    company: 'Tyrell Corporation',
    slug: 'tyrell',
    timezone: 'Australia/Sydney',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'invited'],
    ],
    inboxes: ['Service', 'Returns'],
  },
  {
    company: 'Massive Dynamic',
    slug: 'massive',
    timezone: 'Asia/Kolkata',
    roles: [
      ['Account Owner', 'active'],
      ['Administrator', 'active'],
      ['User', 'active'],
      ['User', 'active'],
    ],
    inboxes: ['Support', 'Partners'],
  },
];

/** How many organizations the sandbox can serve at once. */
export const MAX_ORGANIZATIONS = ORGANIZATION_PLANS.length;

/** Organizations built when no sizes are given (acme and globex). */
export const DEFAULT_ORGANIZATIONS = 2;
