import { TABLES, type TableName } from '../tables.js';
import type { ColumnKind, ColumnSpec, TableSpec } from './table-spec.js';

/**
 * Columns of every output table, in file order. Field names and types come from the
 * API document ("Resources and their fields"); where it shows no type (inbox, user,
 * business-hours profile, holiday) the sandbox's documented wire shape is used.
 * Changing a list changes the table's schema_version and must regenerate schemas/.
 */
const c = (name: string, kind: ColumnKind = 'string', extra: Partial<ColumnSpec> = {}): ColumnSpec => ({
  name,
  kind,
  ...extra,
});
const strings = (...names: string[]) => names.map((n) => c(n));
const bools = (...names: string[]) => names.map((n) => c(n, 'bool'));
const stamps = (...names: string[]) => names.map((n) => c(n, 'timestamp'));

const conversations: ColumnSpec[] = [
  ...strings('id', 'inbox_id'),
  c('ticket_id', 'int'),
  ...bools('has_attachment', 'has_inline_attachment', 'is_draft', 'is_scheduled', 'is_snoozed', 'active'),
  ...strings('subject', 'updated_subject'),
  c('status', 'string', { description: 'Active, Pending or Closed' }),
  c('is_spam', 'bool'),
  c('priority', 'string', { description: 'High, Medium or Low' }),
  ...strings('assignable_type', 'assignable_id'),
  ...stamps('created_at', 'updated_at'),
  c('deleted_at', 'timestamp', { description: 'set while the conversation is in the trash' }),
  c('closed_at', 'timestamp'),
  c('excerpt'),
  c('messages_count', 'int'),
  c('last_message_created_at', 'timestamp'),
  c('intended_inbox_address_id'),
  c('agents', 'string_array'),
  c('contact_id', 'string', { from: 'contact.id', description: 'id of the embedded contact (contacts table)' }),
  c('last_message_id', 'string', { from: 'last_message.id', description: 'id of the embedded last message' }),
  c('custom_field_values', 'object', { description: 'custom-field key to value' }),
  c('viewer_id'),
  c('viewed_at', 'timestamp', { description: 'when the conversation was last viewed (by viewer_id)' }),
  c('last_message_by'),
];

const messages: ColumnSpec[] = [
  ...strings('id', 'conversation_id'),
  c('cc', 'string_array'),
  c('bcc', 'string_array'),
  ...strings('record_type', 'status', 'direction'),
  ...stamps('viewed_at', 'created_at'),
  ...strings('text_body', 'excerpt', 'html_body'),
  c('source_extra', 'object', { from: 'extra', description: "the message's own `extra` object" }),
  c('is_clipped', 'bool'),
  c('intended_inbox_address_id'),
];

const threadEvents: ColumnSpec[] = [
  c('id', 'string', { description: 'message id when the event carries a message, else a stable hash' }),
  c('conversation_id'),
  c('position', 'int', { description: '0-based order in the thread, oldest first' }),
  c('event_type', 'string', { description: 'message, note, or a system event such as status_changed' }),
  c('message_id', 'string', { from: 'event.id', description: 'null for system events' }),
  c('actor', 'json', { description: '{type, id, name} of who caused the event' }),
  c('source_extra', 'object', { from: 'extra', description: "the event's own `extra` object (details of the event)" }),
];

const attachments: ColumnSpec[] = [
  ...strings('id', 'message_id', 'conversation_id', 'name', 'content_type'),
  c('size', 'int', { description: 'bytes' }),
  c('url'),
  c('created_at', 'timestamp'),
];

const contacts: ColumnSpec[] = [
  ...strings('id', 'name'),
  c('email', 'string', { description: 'email address' }),
  c('avatar', 'string', { description: 'URI' }),
  ...strings('company', 'website', 'job_title', 'address'),
  c('should_display_image', 'bool'),
  c('notes'),
  c('conversations_count', 'int'),
];

const inboxes: ColumnSpec[] = [
  ...strings('id', 'name'),
  c('business_hour_enabled', 'bool'),
  ...strings('off_hours_auto_reply_subject', 'off_hours_auto_reply_body'),
  c('folder_counts', 'object', { description: 'per-folder counts: active, pending, closed, spam, trash' }),
  c('agents', 'string_array', { description: 'user ids of the inbox agents' }),
  c('teams', 'array', { description: '[{id, name}]' }),
  c('satisfaction_ratings', 'object', { description: 'free-form satisfaction-ratings configuration' }),
];

const users: ColumnSpec[] = [
  ...strings('id', 'name', 'first_name', 'last_name', 'email', 'avatar', 'phone'),
  c('role', 'string', { description: 'Account Owner, Administrator or User' }),
  c('status', 'string', { description: 'active or invited (pending invitation)' }),
  c('presence', 'string', { description: 'online, away, offline or null' }),
  c('source_extra', 'object', {
    from: 'extra',
    description: "the user's own `extra` object: preferences and other settings",
  }),
];

const businessHours: ColumnSpec[] = [
  ...strings('id', 'name'),
  c('type', 'string', { description: 'calendar_24_7 or business_hours' }),
  c('weekly_schedule', 'array', { description: '7 × {day, start, end}; null for calendar_24_7' }),
  c('inbox_channels', 'array', { description: '[{inbox_id, channel}]' }),
  ...stamps('created_at', 'updated_at'),
];

const holidays: ColumnSpec[] = [
  ...strings('id', 'name'),
  c('start_date', 'date'),
  c('end_date', 'date', { description: 'inclusive' }),
  c('status', 'string', { description: 'upcoming, active or past (derived by the API)' }),
  ...stamps('created_at', 'updated_at'),
];

const productivity: ColumnSpec[] = [
  c('inbox_id'),
  c('date', 'date', { description: 'the day the report covers (start_date = end_date)' }),
  c('resolved_conversations_with_multiple_reply', 'int'),
  c('resolved_conversations_with_one_reply', 'int'),
  c('assigned_conversations', 'int'),
  c('created_conversations', 'int'),
  c('conversations_with_responses', 'array', { description: '[{id, created_at, messages: [...]}]' }),
  c('resolutions_with_time', 'array', { description: '[{date, resolution_time}]' }),
  c('avg_replies_to_resolution', 'number'),
];

function spec(name: TableName, columns: ColumnSpec[], description: string, consumes: string[] = []): TableSpec {
  const roots = columns.flatMap((col) => (col.from ? [col.from.split('.')[0]!] : []));
  return { name, primaryKey: TABLES[name], columns, consumes: [...new Set([...roots, ...consumes])], description };
}

export const TABLE_SPECS: Record<TableName, TableSpec> = {
  conversations: spec('conversations', conversations, 'Conversations (tickets), one row per version.'),
  messages: spec('messages', messages, 'Messages and notes of conversation threads.', ['attachments']),
  thread_events: spec('thread_events', threadEvents, 'Every event of a conversation thread, in order.'),
  attachments: spec('attachments', attachments, 'Attachment metadata of thread messages (no file content).'),
  contacts: spec('contacts', contacts, 'Contacts, taken from the contact embedded in conversations.'),
  tags: spec(
    'tags',
    [
      ...strings('id', 'inbox_id'),
      c('name', 'string', { description: 'at most 64 characters' }),
      c('color', 'string', { description: '#RRGGBB' }),
    ],
    'Tags per inbox.',
  ),
  inboxes: spec('inboxes', inboxes, 'Inboxes.'),
  users: spec('users', users, 'Teammates and pending invitations.'),
  business_hours: spec('business_hours', businessHours, 'Business-hours profiles.'),
  holidays: spec('holidays', holidays, 'Holidays.'),
  report_productivity_daily: spec('report_productivity_daily', productivity, 'Productivity report per inbox and day.'),
};

/** Metadata columns on every row, after the table's own columns: one list, in metadata-columns.ts. */
export { METADATA_COLUMNS } from './metadata-columns.js';
