import { expect } from 'vitest';
import type { SyncJobResult } from '../../../src/sync/sync-job.js';
import { merged, type Row, readTables, type SyncEnv, threadRequests } from './support.js';

/** A column's value as written, or as kept in `_extra` when its type did not fit (loose-types). */
export function columnValue(row: Row, column: string): unknown {
  const value = row[column];
  if (value !== null && value !== undefined) return value;
  return (row._extra as Row | null)?.[column] ?? null;
}

/** What the sandbox holds for the admin's organization: every conversation the API still shows. */
export function apiTruth(env: SyncEnv, options: { trashShown: boolean }) {
  const { store } = env.sandbox;
  const org = store.world.organizations[0]!.id;
  const truth = new Map<
    string,
    {
      status: string;
      subject: string;
      updatedAt: string;
      deletedAt: string | null;
      messageIds: string[];
      inboxId: string;
    }
  >();
  for (let i = 0; i < store.table.count; i++) {
    if (!store.conversations.exists(i)) continue;
    const s = store.conversations.get(i);
    if (s.organizationId !== org) continue;
    if (s.deletedAt !== null && !options.trashShown) continue;
    truth.set(s.id, {
      status: s.status,
      subject: s.subject,
      inboxId: s.inboxId,
      updatedAt: new Date(s.updatedAt).toISOString(),
      deletedAt: s.deletedAt === null ? null : new Date(s.deletedAt).toISOString(),
      messageIds: s.events.filter((e) => e.event !== null).map((e) => e.event!.id),
    });
  }
  return truth;
}

/**
 * The union of every run's output (latest version per key, tombstones applied)
 * against the API's own state: the same conversations, each with the same
 * fields, and the same messages (for conversations whose thread is readable).
 */
export function expectOutputEqualsApi(
  env: SyncEnv,
  options: { trashShown: boolean; unreadableInbox?: string; unlisted?: Set<string> },
): void {
  const truth = apiTruth(env, options);
  const tables = readTables(env.outDir);
  const conversations = merged(tables.conversations);
  const messages = merged(tables.messages);
  const expectedIds = [...truth.keys()].filter((id) => !options.unlisted?.has(id)).sort();
  expect([...conversations.keys()].filter((id) => !options.unlisted?.has(id)).sort()).toEqual(expectedIds);
  const byConversation = new Map<string, string[]>();
  for (const m of messages.values()) {
    const list = byConversation.get(m.conversation_id as string) ?? [];
    list.push(m.id as string);
    byConversation.set(m.conversation_id as string, list);
  }
  for (const id of expectedIds) {
    const t = truth.get(id)!;
    const row = conversations.get(id)!;
    expect(
      {
        status: columnValue(row, 'status'),
        subject: columnValue(row, 'subject'),
        updated_at: columnValue(row, 'updated_at'),
        deleted_at: columnValue(row, 'deleted_at'),
        messages_count: Number(columnValue(row, 'messages_count')),
      },
      id,
    ).toEqual({
      status: t.status,
      subject: t.subject,
      updated_at: t.updatedAt,
      deleted_at: t.deletedAt,
      messages_count: t.messageIds.length,
    });
    if (t.inboxId === options.unreadableInbox) continue;
    expect((byConversation.get(id) ?? []).sort(), `thread of ${id}`).toEqual([...t.messageIds].sort());
  }
}

/** Requests one sync made (all, thread requests, 429s answered), from the sandbox's own counters. */
export async function countedSync(
  env: SyncEnv,
  overrides?: Record<string, unknown>,
  job?: Parameters<SyncEnv['sync']>[1],
): Promise<{ result: SyncJobResult; requests: number; threads: number; limited: number }> {
  const before = env.sandbox.stats();
  const threadsBefore = threadRequests(env.sandbox);
  const result = await env.sync(overrides, job);
  const after = env.sandbox.stats();
  return {
    result,
    requests: after.total - before.total,
    threads: threadRequests(env.sandbox) - threadsBefore,
    limited: (after.by_status['429'] ?? 0) - (before.by_status['429'] ?? 0),
  };
}

/** Ids of the conversations one run tombstoned. */
export function tombstonedIds(env: SyncEnv, runId: string): string[] {
  return (readTables(env.outDir, runId).conversations ?? [])
    .filter((r) => r._deleted === true)
    .map((r) => r.id as string);
}

/** Conversation ids of the admin's organization, oldest first, optionally only those matching. */
export function conversationIds(env: SyncEnv, test: (inboxId: string) => boolean = () => true): string[] {
  const { store } = env.sandbox;
  const org = store.world.organizations[0]!.id;
  const ids: string[] = [];
  for (let i = 0; i < store.table.count; i++) {
    if (!store.conversations.exists(i)) continue;
    const s = store.conversations.get(i);
    if (s.organizationId === org && s.deletedAt === null && test(s.inboxId)) ids.push(s.id);
  }
  return ids;
}
