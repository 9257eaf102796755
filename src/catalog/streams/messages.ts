import { column, stamps, strings } from '../columns.js';
import { defineStream } from '../stream-definition.js';

/** Threads of conversations: events, messages and attachment metadata, fetched for new or changed conversations. */
export const messages = defineStream({
  name: 'messages',
  read: { kind: 'conversation-scan' },
  tables: [
    {
      name: 'messages',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'conversation_id'),
        column('cc', 'string_array'),
        column('bcc', 'string_array'),
        ...strings('record_type', 'status', 'direction'),
        ...stamps('viewed_at', 'created_at'),
        ...strings('text_body', 'excerpt', 'html_body'),
        column('source_extra', 'object', { from: 'extra', description: "the message's own `extra` object" }),
        column('is_clipped', 'bool'),
        column('intended_inbox_address_id'),
      ],
      // Attachments are rows of their own table.
      consumes: ['attachments'],
      description: 'Messages and notes of conversation threads.',
      keys: 'thread',
      dbt: { resource: 'Message', freshness: true },
    },
    {
      name: 'thread_events',
      primaryKey: ['id'],
      columns: [
        column('id', 'string', { description: 'message id when the event carries a message, else a stable hash' }),
        column('conversation_id'),
        column('position', 'int', { description: '0-based order in the thread, oldest first' }),
        column('event_type', 'string', { description: 'message, note, or a system event such as status_changed' }),
        column('message_id', 'string', { from: 'event.id', description: 'null for system events' }),
        column('actor', 'json', { description: '{type, id, name} of who caused the event' }),
        column('source_extra', 'object', {
          from: 'extra',
          description: "the event's own `extra` object (details of the event)",
        }),
      ],
      // The event's message is a row of the messages table.
      consumes: ['event'],
      description: 'Every event of a conversation thread, in order.',
      keys: 'thread',
      dbt: { resource: 'Thread event', freshness: true },
    },
    {
      name: 'attachments',
      primaryKey: ['id'],
      columns: [
        ...strings('id', 'message_id', 'conversation_id', 'name', 'content_type'),
        column('size', 'int', { description: 'bytes' }),
        column('url'),
        column('created_at', 'timestamp'),
      ],
      description: 'Attachment metadata of thread messages (no file content).',
      keys: 'thread',
      dbt: { resource: 'attachment of a thread message', freshness: true },
    },
  ],
  state: {
    /**
     * conversation id → the conversation fingerprint at which its thread was
     * fetched. Small, read for every listed conversation: equal to the current
     * fingerprint means no request. `state show` counts threads.
     */
    scope: 'fp:thread_at',
    unit: 'threads',
    also: {
      /**
       * conversation id → ThreadState, packed bytes (row key → hash maps, see
       * src/streams/conversations/thread-state.ts): ONE value per conversation, not one
       * key per message, to keep the state small for large accounts. Read one key at
       * a time, only for conversations whose thread is fetched or deleted.
       */
      thread: 'fp:thread',
    },
  },
  check: { probe: 'none', detail: 'read through the conversation list' },
  forbidden: { effect: 'fail' },
  verify: 'thread-sample',
  docs: {
    readFrom: '`GET /conversation/{id}/messages`',
    incremental:
      'requested only for conversations that are new or whose fingerprint changed; only rows whose content hash changed are written',
  },
});
