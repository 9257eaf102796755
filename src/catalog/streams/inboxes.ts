import { column, strings } from '../columns.js';
import { defineStream, FULL_REFRESH } from '../stream-definition.js';

/** GET /inboxes: shape not shown in the API document, any list envelope is accepted. */
export const inboxes = defineStream({
  name: 'inboxes',
  read: { kind: 'list', endpoint: { method: 'GET', path: '/inboxes', paginator: 'pages' } },
  tables: [
    {
      name: 'inboxes',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'name'),
        column('business_hour_enabled', 'bool'),
        ...strings('off_hours_auto_reply_subject', 'off_hours_auto_reply_body'),
        column('folder_counts', 'object', { description: 'per-folder counts: active, pending, closed, spam, trash' }),
        column('agents', 'string_array', { description: 'user ids of the inbox agents' }),
        column('teams', 'array', { description: '[{id, name}]' }),
        column('satisfaction_ratings', 'object', { description: 'free-form satisfaction-ratings configuration' }),
      ],
      description: 'Inboxes.',
      keys: 'scope',
      dbt: { resource: 'Inbox', freshness: false },
    },
  ],
  state: { scope: 'fp:inboxes', unit: 'inboxes' },
  check: { probe: 'read' },
  forbidden: { effect: 'fail' },
  verify: 'listing',
  docs: { readFrom: '`GET /inboxes`', incremental: FULL_REFRESH },
});
