import { column } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/**
 * The account the token reads: GET /me answers the current user, the organization
 * (company, slug) and badge counts, "fields beyond these: not shown" (API document,
 * Other operations). One row, keyed by the organization's slug; the organization's
 * other fields and the user's land in `_extra`. The run reads /me once: the same
 * response names the source in the manifest.
 */
export const account = defineStream({
  name: 'account',
  read: { kind: 'list', endpoint: { method: 'GET', path: '/me', paginator: 'single' } },
  tables: [
    {
      name: 'account',
      primaryKey: ['slug'],
      columns: [
        column('slug', 'string', { from: 'organization.slug', description: "the organization's slug" }),
        column('company', 'string', { from: 'organization.company', description: "the organization's company name" }),
        column('user_id', 'string', { from: 'id', description: 'the user the token belongs to (users table)' }),
        column('user_name', 'string', { from: 'name' }),
        column('user_email', 'string', { from: 'email' }),
        column('user_role', 'string', { from: 'role', description: 'Account Owner, Administrator or User' }),
      ],
      description: 'The organization the token reads, and its user: one row.',
      keys: 'scope',
      dbt: { resource: 'Organization and current user (GET /me)', freshness: false },
    },
  ],
  state: { scope: 'fp:account', unit: 'organizations' },
  check: { probe: 'read' },
  forbidden: { effect: 'fail' },
  verify: 'listing',
  docs: {
    readFrom: '`GET /me`, the response that also names the source in the manifest (one request)',
    incremental: 'full refresh: the row is written when anything /me answers changed (badge counts included)',
  },
});
