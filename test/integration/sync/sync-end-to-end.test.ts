import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TABLES } from '../../../src/output/tables.js';
import {
  allConversations,
  api,
  changeEveryWay,
  content,
  type EveryWay,
  merged,
  type Row,
  readTables,
  reportDaysOf,
  requestsBetween,
  type SyncEnv,
  startSyncEnv,
} from './support.js';

const CONVERSATIONS = 150;
let env: SyncEnv;
let apiConversations: Row[];

const strip = (row: Row) => {
  const { contact, last_message, ...rest } = row;
  return rest;
};

// A fresh sandbox, output and state for every test: none depends on another having run.
beforeEach(async () => {
  env = await startSyncEnv({ seed: 11, conversations: CONVERSATIONS });
  apiConversations = await allConversations(env.sandbox);
});
afterEach(async () => {
  await env?.close();
});

describe('sync against the sandbox over HTTP', () => {
  it('first sync writes every record the API holds, equal field by field', async () => {
    const { summary } = await env.sync();
    expect(summary.status).toBe('succeeded');
    const tables = readTables(env.outDir);

    const conversations = merged(tables.conversations);
    expect(new Set(conversations.keys())).toEqual(new Set(apiConversations.map((c) => c.id as string)));
    for (const item of apiConversations.slice(0, 10)) {
      const row = conversations.get(item.id as string)!;
      expect(row).toMatchObject(strip(item));
      expect(row.contact_id).toBe((item.contact as Row).id);
      expect(row.last_message_id).toBe((item.last_message as Row | null)?.id ?? null);
    }

    // Threads: every event, message and attachment of sampled conversations, as the API returns them.
    const events = merged(tables.thread_events);
    const messages = merged(tables.messages);
    const attachments = merged(tables.attachments);
    let totalEvents = 0;
    for (const item of apiConversations) {
      const thread = (await api(env.sandbox, 'GET', `/conversation/${item.id}/messages`)) as unknown as Row[];
      totalEvents += thread.length;
      if (apiConversations.indexOf(item) >= 10) continue;
      thread.forEach((event, position) => {
        const message = event.event as Row | null;
        if (!message) return;
        const { attachments: files, extra, ...fields } = message;
        expect(messages.get(message.id as string)).toMatchObject({
          ...fields,
          source_extra: extra,
          conversation_id: item.id,
        });
        expect(events.get(message.id as string)).toMatchObject({
          conversation_id: item.id,
          position,
          event_type: event.event_type,
          message_id: message.id,
        });
        for (const file of files as Row[]) {
          expect(attachments.get(file.id as string)).toMatchObject({ ...file, message_id: message.id });
        }
      });
    }
    expect(events.size).toBe(totalEvents);

    const contacts = new Set(apiConversations.map((c) => (c.contact as Row).id));
    expect(merged(tables.contacts).size).toBe(contacts.size);
    const inboxes = (await api(env.sandbox, 'GET', '/inboxes')) as unknown as Row[];
    expect(merged(tables.inboxes).size).toBe(inboxes.length);
    const users = (await api(env.sandbox, 'GET', '/settings/users')) as unknown as Row[];
    expect(new Set(merged(tables.users).keys())).toEqual(new Set(users.map((u) => u.id)));
    let tagCount = 0;
    for (const inbox of inboxes) {
      const tags = (await api(env.sandbox, 'GET', `/inboxes/${inbox.id}/tags?per_page=100`)) as { data: Row[] };
      tagCount += tags.data.length;
    }
    expect(merged(tables.tags).size).toBe(tagCount);
    const hours = (await api(env.sandbox, 'GET', '/business-hours')) as unknown as Row[];
    expect(merged(tables.business_hours).size).toBe(hours.length);
    const holidays = (await api(env.sandbox, 'GET', '/holidays')) as unknown as Row[];
    expect(merged(tables.holidays).size).toBe(holidays.length);
    // Every day from reports.start_date (4 days back) to the run's own date, per inbox.
    const days = reportDaysOf(env.config().reports.start_date as string, summary.started_at);
    expect(days).toBeGreaterThanOrEqual(5);
    expect(merged(tables.report_productivity_daily, [...TABLES.report_productivity_daily]).size).toBe(
      days * inboxes.length,
    );
  });

  it('a second sync without changes costs list pages only and writes no conversation, message or contact row', async () => {
    await env.sync();
    const before = env.sandbox.stats();
    const { summary } = await env.sync();
    const requests = requestsBetween(before, env.sandbox.stats());
    expect(env.sandbox.stats().by_route['GET /v1/me']?.['200'], 'one GET /me per run').toBe(
      (before.by_route['GET /v1/me']?.['200'] ?? 0) + 1,
    );
    const inboxes = ((await api(env.sandbox, 'GET', '/inboxes')) as unknown as Row[]).length;
    // GET /me (the manifest's source) + ceil(N/100) list pages + per inbox (tags page, today + lookback
    // report days) + 4 dimension lists.
    expect(requests).toBeLessThanOrEqual(1 + Math.ceil(apiConversations.length / 100) + 3 * inboxes + 4);
    const second = readTables(env.outDir, summary.run_id);
    for (const table of ['conversations', 'messages', 'thread_events', 'attachments', 'contacts']) {
      expect(second[table] ?? [], table).toHaveLength(0);
    }
    const threads = env.sandbox.stats().by_route['GET /v1/conversation/:conversation_id/messages'];
    const threadsBefore = before.by_route['GET /v1/conversation/:conversation_id/messages'];
    expect(threads).toEqual(threadsBefore);
  });

  it('after changes through the API, the next sync emits exactly the changed rows and the tombstones', async () => {
    await env.sync();
    const live = apiConversations.filter((c) => c.deleted_at === null && c.status !== 'Closed');
    const [replied, noted, patched, tagged, trashed, restored, destroyed, target, source] = live;
    const touched = [replied, noted, patched, tagged, trashed, restored, destroyed, target, source] as Row[];
    const s = env.sandbox;
    await changeEveryWay(s, { replied, noted, patched, trashed, restored, destroyed, target, source } as EveryWay);
    const tags = (await api(s, 'GET', `/inboxes/${tagged!.inbox_id}/tags`)) as { data: Row[] };
    await api(s, 'PATCH', `/conversation/${tagged!.id}`, { tags: [tags.data[0]!.id] });
    const touchedContacts = new Set(touched.map((c) => (c.contact as Row).id));
    const untouched = apiConversations.find((c) => !touchedContacts.has((c.contact as Row).id))!;
    const contactId = (untouched.contact as Row).id as string;
    await api(s, 'PATCH', `/contacts/${contactId}`, { job_title: 'Head of Data' });

    const previous = readTables(env.outDir);
    const { summary } = await env.sync();
    const next = readTables(env.outDir, summary.run_id);

    const rows = (table: string) => (next[table] ?? []).filter((r) => r._deleted !== true);
    const tombstones = (table: string) => (next[table] ?? []).filter((r) => r._deleted === true);
    const changedIds = [replied, noted, patched, tagged, trashed, restored, target].map((c) => c!.id);
    expect(new Set(rows('conversations').map((r) => r.id))).toEqual(new Set(changedIds));
    expect(new Set(tombstones('conversations').map((r) => r.id))).toEqual(new Set([destroyed!.id, source!.id]));
    expect(rows('conversations').find((r) => r.id === trashed!.id)!.deleted_at).not.toBeNull();
    expect(rows('conversations').find((r) => r.id === restored!.id)!.deleted_at).toBeNull();
    expect(rows('contacts').find((r) => r.id === contactId)?.job_title).toBe('Head of Data');

    // Nothing else: every emitted row differs from the latest version a previous run wrote.
    for (const table of Object.keys(next)) {
      const pk = [...TABLES[table as keyof typeof TABLES]];
      const before = merged(previous[table], pk);
      for (const row of rows(table)) {
        const earlier = before.get(pk.map((c) => String(row[c])).join('|'));
        if (earlier) expect(content(row), `${table} ${row.id} was written unchanged`).not.toEqual(content(earlier));
      }
    }
    // The force-deleted conversation's thread is tombstoned; the merged one's messages moved, not deleted.
    const destroyedThread = previous.thread_events!.filter((r) => r.conversation_id === destroyed!.id);
    expect(destroyedThread.length).toBeGreaterThan(0);
    const deadKeys = new Set(tombstones('thread_events').map((r) => r.id));
    for (const event of destroyedThread) expect(deadKeys.has(event.id)).toBe(true);
    const sourceMessages = previous.messages!.filter((r) => r.conversation_id === source!.id);
    const moved = new Map(rows('messages').map((r) => [r.id, r]));
    for (const message of sourceMessages) expect(moved.get(message.id)?.conversation_id).toBe(target!.id);
    expect(rows('messages').some((r) => r.record_type === 'note' && r.conversation_id === noted!.id)).toBe(true);

    // And the run after that is quiet again.
    const { summary: quiet } = await env.sync();
    const after = readTables(env.outDir, quiet.run_id);
    for (const table of ['conversations', 'messages', 'thread_events', 'contacts']) {
      expect(after[table] ?? [], table).toHaveLength(0);
    }
  });
});
