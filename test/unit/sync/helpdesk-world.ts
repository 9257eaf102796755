import type { ApiObject } from '../../../src/api/endpoints/types.js';
import type { FakeHelpdesk } from './fake-helpdesk.js';

/**
 * Seeded data and the writes of the API document (reply, note, status PATCH, tag
 * change, trash, restore, force-delete, merge, contact PATCH) applied to a
 * FakeHelpdesk the way the sandbox applies them: the conversation list item
 * moves (updated_at, messages_count, last message…) and the thread gains events.
 */
export class HelpdeskWorld {
  #tick = 0;
  #seq = 0;

  constructor(readonly api: FakeHelpdesk) {}

  ts(): string {
    this.#tick += 1;
    return new Date(Date.UTC(2026, 0, 1) + this.#tick * 60_000).toISOString();
  }

  id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}-${String(this.#seq).padStart(6, '0')}`;
  }

  seed(options: { conversations: number; inboxes?: number; contacts?: number }): void {
    const inboxCount = options.inboxes ?? 2;
    for (let i = 0; i < inboxCount; i++) {
      const id = `inbox-${i + 1}`;
      this.api.inboxes.push({ id, name: `Inbox ${i + 1}`, business_hour_enabled: false, agents: ['user-1'] });
      this.api.tags.set(id, [{ id: `tag-${i + 1}`, name: `tag ${i + 1}`, color: '#112233' }]);
    }
    this.api.users = [{ id: 'user-1', name: 'Ada', role: 'Account Owner', status: 'active' }];
    this.api.businessHours = [{ id: 'bh-1', name: 'Office', type: 'calendar_24_7', weekly_schedule: null }];
    this.api.holidays = [{ id: 'hol-1', name: 'New Year', start_date: '2026-01-01', end_date: '2026-01-01' }];
    const contacts = Array.from({ length: options.contacts ?? 10 }, (_, i) => ({
      id: `contact-${i + 1}`,
      name: `Contact ${i + 1}`,
      email: `c${i + 1}@example.test`,
      conversations_count: 0,
    }));
    for (let i = 0; i < options.conversations; i++) {
      this.createConversation(`inbox-${(i % inboxCount) + 1}`, contacts[i % contacts.length] as ApiObject);
    }
  }

  createConversation(inboxId: string, contact: ApiObject): string {
    const id = this.id('conv');
    const at = this.ts();
    const message = this.message('inbound', 'message', at, true);
    this.api.conversations.set(id, {
      id,
      inbox_id: inboxId,
      ticket_id: this.#seq,
      subject: `Subject ${id}`,
      status: 'Active',
      priority: 'Medium',
      created_at: at,
      updated_at: at,
      deleted_at: null,
      messages_count: 1,
      last_message_created_at: at,
      agents: [],
      contact,
      last_message: message,
      custom_field_values: {},
    });
    this.api.threads.set(id, [
      {
        event_type: 'message',
        event: message,
        actor: { type: 'contact', id: String(contact.id), name: null },
        extra: {},
      },
      { event_type: 'assigned', event: null, actor: { type: 'system', id: null, name: null }, extra: { to: 'user-1' } },
    ]);
    return id;
  }

  message(direction: string, recordType: string, at: string, withAttachment = false): ApiObject {
    const id = this.id('msg');
    return {
      id,
      record_type: recordType,
      direction,
      status: 'sent',
      created_at: at,
      text_body: `body of ${id}`,
      cc: [],
      bcc: [],
      extra: {},
      attachments: withAttachment
        ? [
            {
              id: this.id('att'),
              name: 'a.txt',
              content_type: 'text/plain',
              size: 3,
              url: 'https://files.test/a',
              created_at: at,
            },
          ]
        : [],
    };
  }

  #conversation(id: string): ApiObject {
    const c = this.api.conversations.get(id);
    if (!c) throw new Error(`no conversation ${id}`);
    return c;
  }

  #system(id: string, eventType: string, extra: ApiObject = {}): void {
    this.api.threads
      .get(id)
      ?.push({ event_type: eventType, event: null, actor: { type: 'user', id: 'user-1', name: 'Ada' }, extra });
    this.#conversation(id).updated_at = this.ts();
  }

  #addMessage(id: string, eventType: 'message' | 'note'): string {
    const c = this.#conversation(id);
    const at = this.ts();
    const message = this.message('outbound', eventType, at);
    this.api.threads
      .get(id)
      ?.push({ event_type: eventType, event: message, actor: { type: 'user', id: 'user-1', name: 'Ada' }, extra: {} });
    c.messages_count = Number(c.messages_count) + 1;
    c.last_message = message;
    c.last_message_created_at = at;
    c.updated_at = at;
    return String(message.id);
  }

  reply(id: string): string {
    return this.#addMessage(id, 'message');
  }

  note(id: string): string {
    return this.#addMessage(id, 'note');
  }

  setStatus(id: string, status: string): void {
    this.#conversation(id).status = status;
    this.#system(id, 'status_changed', { to: status });
  }

  /** Tags are not a field of the list item; the thread gains a `tagged` event and updated_at moves. */
  tag(id: string, tagId: string): void {
    this.#system(id, 'tagged', { tag: tagId });
  }

  trash(id: string): void {
    this.#conversation(id).deleted_at = this.ts();
    this.#system(id, 'trashed');
  }

  restore(id: string): void {
    this.#conversation(id).deleted_at = null;
    this.#system(id, 'restored');
  }

  forceDelete(id: string): void {
    this.api.conversations.delete(id);
    this.api.threads.delete(id);
  }

  /** `source` disappears; its events move into `target` after a `merged` event. */
  merge(target: string, source: string): void {
    const moved = this.api.threads.get(source) ?? [];
    this.forceDelete(source);
    this.#system(target, 'merged', { from: source });
    const thread = this.api.threads.get(target) ?? [];
    thread.push(...moved);
    const c = this.#conversation(target);
    c.messages_count = thread.filter((e) => e.event).length;
  }

  /** A contact PATCH: every conversation embeds the new contact; the conversations themselves do not move. */
  patchContact(contactId: string, fields: ApiObject): void {
    for (const c of this.api.conversations.values()) {
      const contact = c.contact as ApiObject;
      if (contact.id === contactId) c.contact = { ...contact, ...fields };
    }
  }

  conversationIds(): string[] {
    return [...this.api.conversations.keys()];
  }
}
