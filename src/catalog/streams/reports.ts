import { column } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/**
 * report_productivity_daily: one request per inbox and UTC day (start_date =
 * end_date = day), so each row is one day of one inbox and a day can be re-pulled
 * alone (src/streams/reports/ decides which days).
 */
export const reports = defineStream({
  name: 'reports',
  read: {
    kind: 'report-days',
    endpoint: { method: 'GET', path: '/reports/{inbox_id}/productivity', paginator: 'single' },
  },
  tables: [
    {
      name: 'report_productivity_daily',
      primaryKey: ['inbox_id', 'date'],
      columns: [
        column('inbox_id'),
        column('date', 'date', { description: 'the day the report covers (start_date = end_date)' }),
        column('resolved_conversations_with_multiple_reply', 'int'),
        column('resolved_conversations_with_one_reply', 'int'),
        column('assigned_conversations', 'int'),
        column('created_conversations', 'int'),
        column('conversations_with_responses', 'array', { description: '[{id, created_at, messages: [...]}]' }),
        column('resolutions_with_time', 'array', { description: '[{date, resolution_time}]' }),
        column('avg_replies_to_resolution', 'number'),
      ],
      description: 'Productivity report per inbox and day.',
      keys: 'per-inbox',
      dbt: { resource: 'Productivity report', freshness: true },
    },
  ],
  /** `report_day:<inbox_id>`: date (YYYY-MM-DD) → fingerprint of that day's report, one scope per inbox. */
  state: { prefix: 'report_day:', unit: 'inbox-days' },
  check: { probe: 'custom' },
  // Judged per inbox (REPORTS_INBOX_FORBIDDEN); skipped whole only when no inbox is readable.
  forbidden: { effect: 'skip' },
  verify: 'output-only',
  docs: {
    readFrom: '`GET /reports/{inbox_id}/productivity`, one request per inbox and day',
    incremental:
      'every day from `reports.start_date` once, then today and the `lookback_days` days before it on every run',
  },
});
