import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type SyncJobOptions, type SyncJobResult, syncJob } from '../../../src/sync/sync-job.js';
import { readJsonlGz } from '../output/support/read-jsonl-gz.js';

export type Row = Record<string, unknown>;

export interface SyncEnv {
  sandbox: RunningSandbox;
  dir: string;
  outDir: string;
  statePath: string;
  /** The env's config; `source` overrides merge into the default source, other keys replace. */
  config(overrides?: Record<string, unknown>): Config;
  /** The same config written as a JSON file for the CLI; returns its path. */
  configFile(name: string, overrides?: Record<string, unknown>): string;
  /** One sync; `job` adds options of the run (a queue of its own, a signal). */
  sync(overrides?: Record<string, unknown>, job?: Partial<SyncJobOptions>): Promise<SyncJobResult>;
  /** Stops the sandbox and removes the env's directory (output, state, config files). */
  close(): Promise<void>;
}

/** A sandbox plus a fresh output directory and state file, over real sockets. */
export async function startSyncEnv(options: {
  seed: number;
  conversations: number;
  faults?: string;
  quirks?: string;
  token?: string;
}): Promise<SyncEnv> {
  const sandbox = await startSandbox({
    port: 0,
    seed: options.seed,
    conversations: options.conversations,
    rateLimit: 1_000_000,
    rateWindowSeconds: 60,
    faults: options.faults,
    quirks: options.quirks,
  });
  const dir = mkdtempSync(join(tmpdir(), 'hs-sync-'));
  const outDir = join(dir, 'out');
  const statePath = join(dir, 'state', 'state.sqlite');
  // Fixed for the env's life: a run after midnight UTC keeps the same reports window start.
  const reportsStart = daysAgo(4);
  const config = ({ source, ...overrides }: Record<string, unknown> = {}) =>
    parseConfig(
      {
        source: {
          base_url: sandbox.baseUrl,
          token: options.token ?? 'sandbox-admin',
          rate_limit: { requests_per_minute: 100_000, concurrency: 8 },
          ...(source as Record<string, unknown> | undefined),
        },
        reports: { start_date: reportsStart, lookback_days: 1 },
        destination: { type: 'local', path: outDir },
        state: { path: statePath },
        ...overrides,
      },
      'test',
      {},
    );
  const configFile = (name: string, overrides?: Record<string, unknown>) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(config(overrides)));
    return path;
  };
  return {
    sandbox,
    dir,
    outDir,
    statePath,
    config,
    configFile,
    sync: (overrides, job) => syncJob(config(overrides), { logger: silentLogger(), ...job }),
    close: async () => {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The UTC date `n` days before `from`. */
export function daysAgo(n: number, from: Date = new Date()): string {
  return new Date(from.getTime() - n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Report days a run pulls: from `startDate` to the run's own UTC date, both
 * included. Taken from the run (its `started_at`), not from today's date, so a
 * test that crosses midnight UTC expects what the run really did.
 */
export function reportDaysOf(startDate: string, runStartedAt: string): number {
  const days = (Date.parse(runStartedAt.slice(0, 10)) - Date.parse(startDate)) / 86_400_000;
  return days + 1;
}

function walk(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out = statSync(path).isDirectory() ? out.concat(walk(path)) : out.concat(path);
  }
  return out;
}

/** Rows of every data file under `outDir`, by table; `runId` keeps one run's files only. */
export function readTables(outDir: string, runId?: string): Record<string, Row[]> {
  const tables: Record<string, Row[]> = {};
  for (const path of walk(outDir)) {
    const key = relative(outDir, path);
    if (!key.endsWith('.jsonl.gz') || key.startsWith('_')) continue;
    if (runId && !key.split('/').at(-1)!.startsWith(runId)) continue;
    const table = key.split('/')[0]!;
    tables[table] = (tables[table] ?? []).concat(readJsonlGz(path));
  }
  return tables;
}

/** The latest row per primary key (by `_synced_at`), tombstones removed: what a warehouse merge keeps. */
export function merged(rows: Row[] = [], pk: string[] = ['id']): Map<string, Row> {
  const latest = new Map<string, Row>();
  for (const row of rows) {
    const key = pk.map((c) => String(row[c])).join('|');
    const seen = latest.get(key);
    if (!seen || String(seen._synced_at) <= String(row._synced_at)) latest.set(key, row);
  }
  for (const [key, row] of latest) if (row._deleted === true) latest.delete(key);
  return latest;
}

/** A row without its run metadata, for comparing content across runs. */
export function content(row: Row): Row {
  const { _synced_at, _run_id, ...rest } = row;
  return rest;
}

/** Minimal independent HTTP reader of the sandbox, to compare the output with what the API holds. */
export async function api(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  body?: unknown,
  token = 'sandbox-admin',
) {
  const send = () =>
    fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let response = await send();
  // A rough sandbox (odd-retry-after) sends 429s to this reader too, whatever its
  // Retry-After says: its spells last a second, so a few short waits get through.
  for (let attempt = 1; response.status === 429 && attempt <= 20; attempt++) {
    await response.text();
    await new Promise((done) => setTimeout(done, 250));
    response = await send();
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Row & { data?: unknown }) : {};
}

/** Conversations a test changes, each in its own way (see changeEveryWay). */
export interface EveryWay {
  replied: Row;
  noted: Row;
  patched: Row;
  trashed: Row;
  restored: Row;
  destroyed: Row;
  target: Row;
  source: Row;
}

/**
 * Changes conversations through the API in every way a sync must see: a reply
 * (draft, then sent), an internal note, a status change, a trash, a trash then
 * a restore, a trash then a permanent delete, and a merge of `source` into `target`.
 */
export async function changeEveryWay(sandbox: RunningSandbox, c: EveryWay): Promise<void> {
  await api(sandbox, 'POST', `/conversation/${c.replied.id}/draft`, { message: '<p>On it.</p>', cc: [] });
  await api(sandbox, 'POST', `/conversation/${c.replied.id}/reply`, { status: 'Pending' });
  await api(sandbox, 'POST', `/conversation/${c.noted.id}/note`, { message: 'internal', mentioned_ids: [] });
  await api(sandbox, 'PATCH', `/conversation/${c.patched.id}`, { status: 'Closed' });
  await api(sandbox, 'DELETE', `/conversation/${c.trashed.id}`);
  await api(sandbox, 'DELETE', `/conversation/${c.restored.id}`);
  await api(sandbox, 'PATCH', `/conversation/${c.restored.id}/restore`);
  await api(sandbox, 'DELETE', `/conversation/${c.destroyed.id}`);
  await api(sandbox, 'DELETE', `/conversation/${c.destroyed.id}/force-delete`);
  await api(sandbox, 'POST', `/conversation/${c.target.id}/merge`, { mergeable_conversation_ids: [c.source.id] });
}

/**
 * changeEveryWay on the first eight open conversations (neither trashed nor closed),
 * and `contactChange` to the contact of the last open one. Returns the open
 * conversations as listed before the changes (a test may change more of them).
 */
export async function changeEveryWayOnOpen(
  sandbox: RunningSandbox,
  contactChange: Row = { job_title: 'Head of Data' },
): Promise<Row[]> {
  const open = (await allConversations(sandbox)).filter((c) => c.deleted_at === null && c.status !== 'Closed');
  const [replied, noted, patched, trashed, restored, destroyed, target, source] = open;
  await changeEveryWay(sandbox, { replied, noted, patched, trashed, restored, destroyed, target, source } as EveryWay);
  await api(sandbox, 'PATCH', `/contacts/${(open.at(-1)!.contact as Row).id}`, contactChange);
  return open;
}

/** Every conversation `POST /search` lists, 100 a page; `sort` as the connector may ask (`oldest`). */
export async function allConversations(sandbox: RunningSandbox, sort?: 'oldest' | 'newest'): Promise<Row[]> {
  const items: Row[] = [];
  const path = sort ? `/search?sort=${sort}` : '/search';
  for (let page = 1; ; page++) {
    const body = (await api(sandbox, 'POST', path, { page, per_page: 100 })) as {
      data: { conversations: { data: Row[]; links: { next: string | null } } };
    };
    items.push(...body.data.conversations.data);
    if (!body.data.conversations.links.next) return items;
  }
}

/** Requests to one route (e.g. `POST /v1/search`) the sandbox has answered, whatever the status. */
export function routeRequests(sandbox: RunningSandbox, route: string): number {
  return Object.values(sandbox.stats().by_route[route] ?? {}).reduce((a, b) => a + b, 0);
}

/** Thread requests (GET /conversation/{id}/messages) the sandbox has answered, whatever the status. */
export function threadRequests(sandbox: RunningSandbox): number {
  return routeRequests(sandbox, 'GET /v1/conversation/:conversation_id/messages');
}

export function requestsBetween(before: { total: number }, after: { total: number }): number {
  return after.total - before.total;
}
