import { column, strings } from '../columns.js';
import { defineStream, FULL_REFRESH } from '../stream-definition.js';

/**
 * GET /settings/users needs scope users:read (API document, Authentication
 * rule 5); a token without it gets 403, which skips this stream with a warning
 * instead of failing the run (docs/streams.md), and tombstones nothing.
 */
export const users = defineStream({
  name: 'users',
  read: { kind: 'list', endpoint: { method: 'GET', path: '/settings/users', paginator: 'pages' } },
  tables: [
    {
      name: 'users',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'name', 'first_name', 'last_name', 'email', 'avatar', 'phone'),
        column('role', 'string', { description: 'Account Owner, Administrator or User' }),
        column('status', 'string', { description: 'active or invited (pending invitation)' }),
        column('presence', 'string', { description: 'online, away, offline or null' }),
        column('source_extra', 'object', {
          from: 'extra',
          description: "the user's own `extra` object: preferences and other settings",
        }),
      ],
      description: 'Teammates and pending invitations.',
      keys: 'scope',
      dbt: { resource: 'User (teammate)', freshness: false },
    },
  ],
  state: { scope: 'fp:users', unit: 'teammates' },
  check: { probe: 'read', note: 'scope users:read' },
  forbidden: { effect: 'skip', why: 'the token lacks scope users:read' },
  verify: 'listing',
  docs: {
    readFrom: '`GET /settings/users` (scope `users:read`)',
    incremental: FULL_REFRESH,
  },
});
