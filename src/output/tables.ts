/**
 * Output tables and their primary keys (docs/output.md). The row schemas in
 * ./rows/ give each table its columns; this file is the one list of names.
 */
export const TABLES = {
  conversations: ['id'],
  messages: ['id'],
  thread_events: ['id'],
  attachments: ['id'],
  contacts: ['id'],
  tags: ['id'],
  inboxes: ['id'],
  users: ['id'],
  business_hours: ['id'],
  holidays: ['id'],
  report_productivity_daily: ['inbox_id', 'date'],
} as const satisfies Record<string, readonly string[]>;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
