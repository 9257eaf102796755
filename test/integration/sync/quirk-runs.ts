import { expect } from 'vitest';
import type { SyncSummary } from '../../../src/sync/run-sync.js';
import { conversationIds, countedSync, tombstonedIds } from './quirk-harness.js';
import { api, readTables, type SyncEnv } from './support.js';

/*
 * The runs every quirk test is made of (docs/streams.md, "Deployments that
 * differ"): a first sync, a quiet one, changes through the API, and the sync
 * that picks them up; with what each run must show.
 */

/** A note on one conversation, another closed, a third trashed: three changed conversations. */
export async function mutate(e: SyncEnv, ids: string[]): Promise<{ noted: string; closed: string; trashed: string }> {
  const { store } = e.sandbox;
  const open = ids.filter((id) => store.conversations.get(store.conversations.indexOf(id)!).status !== 'Closed');
  const [noted, closed, trashed] = [ids[0]!, open.find((id) => id !== ids[0])!, ids.at(-1)!];
  await api(e.sandbox, 'POST', `/conversation/${noted}/note`, { message: 'checked with the customer' });
  await api(e.sandbox, 'PATCH', `/conversation/${closed}`, { status: 'Closed' });
  await api(e.sandbox, 'DELETE', `/conversation/${trashed}`);
  return { noted, closed, trashed };
}

/** First sync, then a quiet one (its request count is the baseline). */
export async function baseline(e: SyncEnv) {
  const first = await countedSync(e);
  expect(first.result.summary.status).toBe('succeeded');
  const quiet = await countedSync(e);
  return { first, quiet };
}

export function tombstones(e: SyncEnv, runId: string): number {
  return tombstonedIds(e, runId).length;
}

/** Every difference between the API's counts and the state is explained: no INCOMPLETE, nothing unexplained. */
export function expectExplained(run: { result: { summary: SyncSummary } }): void {
  const { summary } = run.result;
  expect(summary.warnings.filter((w) => w.code === 'INCOMPLETE')).toEqual([]);
  expect(summary.completeness.filter((f) => f.unexplained !== 0)).toEqual([]);
}

/** Within one run, no conversation and no message written twice, however the listing repeated them. */
export function expectEachKeyOnce(e: SyncEnv, runId: string): void {
  const tables = readTables(e.outDir, runId);
  for (const table of ['conversations', 'messages'] as const) {
    const ids = (tables[table] ?? []).map((r) => r.id as string);
    expect(ids.length, `${table} rows of ${runId}`).toBe(new Set(ids).size);
  }
}

/** One counted sync that must succeed (the quirk tests run three in a row). */
export async function succeededSync(e: SyncEnv, job?: Parameters<SyncEnv['sync']>[1]) {
  const run = await countedSync(e, undefined, job);
  expect(run.result.summary.status).toBe('succeeded');
  return run;
}

/** A first sync, a quiet one, three changes through the API, and the sync that picks them up. */
export async function syncChangeSync(e: SyncEnv) {
  const first = await succeededSync(e);
  const quiet = await succeededSync(e);
  await mutate(e, conversationIds(e));
  const second = await succeededSync(e);
  return { first, quiet, second };
}
