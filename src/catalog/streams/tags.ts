import { column, strings } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/**
 * Tags, listed per inbox (GET /inboxes/{id}/tags, the simple paginator: see
 * Limits). The primary key is the tag id alone, so a tag listed by several
 * inboxes is one row, under the first inbox (in GET /inboxes order) that lists it.
 */
export const tags = defineStream({
  name: 'tags',
  read: { kind: 'per-inbox', endpoint: { method: 'GET', path: '/inboxes/{inbox_id}/tags', paginator: 'pages' } },
  tables: [
    {
      name: 'tags',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'inbox_id'),
        column('name', 'string', { description: 'at most 64 characters' }),
        column('color', 'string', { description: '#RRGGBB' }),
      ],
      description: 'Tags per inbox.',
      keys: 'scope',
      dbt: { resource: 'Tag', freshness: false },
    },
  ],
  state: { scope: 'fp:tags', unit: 'tags' },
  check: { probe: 'read' },
  forbidden: { effect: 'fail' },
  verify: 'listing',
  docs: {
    readFrom: '`GET /inboxes/{id}/tags` for every inbox',
    incremental: 'full refresh: changed rows, tombstones for tags no inbox lists any more',
  },
});
