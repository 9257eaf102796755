import { column, stamps, strings } from '../columns.js';
import { defineStream, FULL_REFRESH, PAT_ONLY } from '../stream-definition.js';

/** GET /holidays: every holiday, unpaginated; PAT only, like business hours. */
export const holidays = defineStream({
  name: 'holidays',
  read: { kind: 'list', endpoint: { method: 'GET', path: '/holidays', paginator: 'unpaginated' } },
  tables: [
    {
      name: 'holidays',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'name'),
        column('start_date', 'date'),
        column('end_date', 'date', { description: 'inclusive' }),
        column('status', 'string', { description: 'upcoming, active or past (derived by the API)' }),
        ...stamps('created_at', 'updated_at'),
      ],
      description: 'Holidays.',
      keys: 'scope',
      dbt: { resource: 'Holiday', freshness: false },
    },
  ],
  state: { scope: 'fp:holidays', unit: 'holidays' },
  check: { probe: 'read' },
  forbidden: { effect: 'skip', why: PAT_ONLY },
  verify: 'listing',
  docs: {
    readFrom: '`GET /holidays` (one unpaginated list)',
    incremental: FULL_REFRESH,
  },
});
