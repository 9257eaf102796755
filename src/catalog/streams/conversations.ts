import { bools, column, stamps, strings } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/** Conversations (tickets): the list scan, one row per changed conversation (docs/streams.md). */
export const conversations = defineStream({
  name: 'conversations',
  read: { kind: 'conversation-scan' },
  tables: [
    {
      name: 'conversations',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'inbox_id'),
        column('ticket_id', 'int'),
        ...bools('has_attachment', 'has_inline_attachment', 'is_draft', 'is_scheduled', 'is_snoozed', 'active'),
        ...strings('subject', 'updated_subject'),
        column('status', 'string', { description: 'Active, Pending or Closed' }),
        column('is_spam', 'bool'),
        column('priority', 'string', { description: 'High, Medium or Low' }),
        ...strings('assignable_type', 'assignable_id'),
        ...stamps('created_at', 'updated_at'),
        column('deleted_at', 'timestamp', { description: 'set while the conversation is in the trash' }),
        column('closed_at', 'timestamp'),
        column('excerpt'),
        column('messages_count', 'int'),
        column('last_message_created_at', 'timestamp'),
        column('intended_inbox_address_id'),
        column('agents', 'string_array'),
        column('contact_id', 'string', {
          from: 'contact.id',
          description: 'id of the embedded contact (contacts table)',
        }),
        column('last_message_id', 'string', {
          from: 'last_message.id',
          description: 'id of the embedded last message',
        }),
        column('custom_field_values', 'object', { description: 'custom-field key to value' }),
        column('viewer_id'),
        column('viewed_at', 'timestamp', { description: 'when the conversation was last viewed (by viewer_id)' }),
        column('last_message_by'),
      ],
      // The contact is the contacts table's, the last message the messages table's.
      consumes: ['contact', 'last_message'],
      description: 'Conversations (tickets), one row per version.',
      keys: 'scope',
      dbt: { resource: 'Conversation', freshness: true },
    },
  ],
  state: {
    /** conversation id → fingerprint of the list item (embedded contact reduced to its id). */
    scope: 'fp:conversations',
    unit: 'conversations',
    also: {
      /**
       * `conversations` → where a recent-first backfill stands (JSON, see
       * src/streams/conversations/backfill-state.ts); absent when none is pending.
       */
      backfill: 'scan:backfill',
      /**
       * `conversations` → the holes the last complete listing saw mid-list and no re-read
       * filled (JSON, see src/streams/conversations/listing-holes.ts), re-read first by the
       * next run; absent when there were none.
       */
      holes: 'scan:holes',
    },
  },
  check: { probe: 'custom' },
  forbidden: { effect: 'fail' },
  verify: 'conversation-listing',
  docs: {
    readFrom:
      '`POST /search` (default) or `GET /conversations/mine` (`source.conversations_endpoint: mine`), `sort=oldest`, 100 per page',
    incremental: "full list scan every run; a row is written when the conversation's fingerprint changed",
  },
});
