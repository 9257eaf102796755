import { column, stamps, strings } from '../columns.js';
import { defineStream, FULL_REFRESH, PAT_ONLY } from '../stream-definition.js';

/** GET /business-hours: every profile, unpaginated (API document, Other operations); PAT only. */
export const businessHours = defineStream({
  name: 'business_hours',
  read: { kind: 'list', endpoint: { method: 'GET', path: '/business-hours', paginator: 'unpaginated' } },
  tables: [
    {
      name: 'business_hours',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'name'),
        column('type', 'string', { description: 'calendar_24_7 or business_hours' }),
        column('weekly_schedule', 'array', { description: '7 × {day, start, end}; null for calendar_24_7' }),
        column('inbox_channels', 'array', { description: '[{inbox_id, channel}]' }),
        ...stamps('created_at', 'updated_at'),
      ],
      description: 'Business-hours profiles.',
      keys: 'scope',
      dbt: { resource: 'Business-hours profile', freshness: false },
    },
  ],
  state: { scope: 'fp:business_hours', unit: 'profiles' },
  check: { probe: 'read' },
  forbidden: { effect: 'skip', why: PAT_ONLY },
  verify: 'listing',
  docs: {
    readFrom: '`GET /business-hours` (one unpaginated list)',
    incremental: FULL_REFRESH,
  },
});
