import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { runCli } from './cli-run.js';
import { content, merged, readTables, routeRequests, type SyncEnv, startSyncEnv, threadRequests } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 5, conversations: 300 });
});
afterAll(async () => {
  await env?.close();
});

/** Runs `helpdesk-sync sync` in a child process and SIGKILLs it once `killWhen` holds. */
async function syncKilledWhen(configPath: string, killWhen: () => boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const result = await runCli(['sync', '--config', configPath], {
    onStart: (child) => {
      timer = setInterval(() => {
        if (killWhen()) child.kill('SIGKILL');
      }, 20);
    },
  });
  clearInterval(timer);
  if (result.signal !== 'SIGKILL')
    throw new Error(`sync ended before the kill (exit ${result.code}): ${result.stderr}`);
}

describe('a sync killed with SIGKILL in the middle of the messages stream', () => {
  it('resumes without re-fetching committed threads, and loses nothing', async () => {
    const configPath = env.configFile('slow.json', {
      source: { rate_limit: { requests_per_minute: 1200, concurrency: 2 } },
      checkpoint: { every_rows: 200, every_seconds: 1 },
      log: { level: 'error' },
    });
    await syncKilledWhen(configPath, () => threadRequests(env.sandbox) >= 150);
    const fetchedBeforeKill = threadRequests(env.sandbox);

    // Threads committed by the killed run: those in state, and those staged by a
    // checkpoint the kill left pending. Its files are durable (a local sink, the
    // spool intact), so the next run's recovery commits it before anything is read.
    const db = new Database(env.statePath, { readonly: true });
    const store = createKvStore({ db });
    const staged = db
      .prepare(
        `SELECT DISTINCT p.key FROM pending_state p JOIN checkpoints c USING (checkpoint_id)
          WHERE c.status = 'pending' AND p.scope = ? AND p.value IS NOT NULL`,
      )
      .pluck()
      .all(SCOPES.threadAt) as string[];
    const committed =
      store.count(SCOPES.threadAt) + staged.filter((key) => store.get(SCOPES.threadAt, key) === undefined).length;
    db.close();
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(fetchedBeforeKill + 1);

    const { summary } = await env.sync();
    expect(summary.status).toBe('succeeded');
    const refetched = threadRequests(env.sandbox) - fetchedBeforeKill;
    const listed = summary.conversations_scanned;
    // Exactly the threads whose commit the kill prevented are fetched again.
    expect(refetched).toBe(listed - committed);

    // The union of both runs' output equals a clean sync's, table by table.
    const reference = await startReference();
    const union = readTables(env.outDir);
    for (const table of Object.keys(TABLES) as TableName[]) {
      const pk = [...TABLES[table]];
      const got = merged(union[table], pk);
      const want = merged(reference[table], pk);
      expect(new Set(got.keys()), table).toEqual(new Set(want.keys()));
      for (const [key, row] of want) {
        expect(content(got.get(key)!), `${table} ${key}`).toEqual(content(row));
      }
    }
  });
});

describe('a first sync killed between its checkpoints', () => {
  let own: SyncEnv;
  beforeAll(async () => {
    own = await startSyncEnv({ seed: 6, conversations: 300 });
  });
  afterAll(async () => {
    await own?.close();
  });

  it('keeps the pages it finished (marked in the spool): the kill costs at most the page it was on', async () => {
    // No checkpoint before the kill (5 000 rows and 10 minutes are far off): only the marks keep anything.
    const configPath = own.configFile('marks.json', {
      source: { rate_limit: { requests_per_minute: 1200, concurrency: 2 } },
      checkpoint: { every_rows: 5000, every_seconds: 600 },
      log: { level: 'error' },
    });
    let timer: NodeJS.Timeout | undefined;
    const killed = await runCli(['sync', '--config', configPath], {
      onStart: (child) => {
        timer = setInterval(() => {
          if (threadRequests(own.sandbox) >= 150) child.kill('SIGKILL');
        }, 20);
      },
    });
    clearInterval(timer);
    expect(killed.signal).toBe('SIGKILL');
    const listBefore = routeRequests(own.sandbox, 'POST /v1/search');

    const { summary } = await own.sync();
    expect(summary.status).toBe('succeeded');
    expect(summary.conversations_scanned).toBeGreaterThan(0);
    // Page 1 (100 conversations) was marked before the kill: of the ~150 threads fetched, at
    // most the second page's are fetched again, and the list resumes at page 1, not before it.
    const threads = threadRequests(own.sandbox);
    expect(threads).toBeGreaterThanOrEqual(300);
    expect(threads - 300).toBeLessThanOrEqual(100);
    expect(routeRequests(own.sandbox, 'POST /v1/search') - listBefore).toBeLessThanOrEqual(3);
    // Nothing twice, nothing lost: each key once, and the union of both runs' output is a clean sync's.
    const union = readTables(own.outDir);
    const reference = await startReference(own);
    for (const table of Object.keys(TABLES) as TableName[]) {
      const pk = [...TABLES[table]];
      expect(merged(union[table], pk).size, `${table}: one row per key`).toBe(union[table]?.length ?? 0);
      expect(new Set(merged(union[table], pk).keys()), table).toEqual(new Set(merged(reference[table], pk).keys()));
    }
  });
});

/** A clean first sync of the same sandbox into a directory of its own. */
async function startReference(from: SyncEnv = env) {
  const outDir = join(from.dir, 'reference-out');
  await from.sync({
    destination: { type: 'local', path: outDir },
    state: { path: join(from.dir, 'reference.sqlite') },
  });
  return readTables(outDir);
}
