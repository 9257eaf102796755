import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { runCli } from './cli-run.js';
import { content, merged, readTables, type SyncEnv, startSyncEnv, threadRequests } from './support.js';

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

/** A clean first sync of the same sandbox into a directory of its own. */
async function startReference() {
  const outDir = join(env.dir, 'reference-out');
  await env.sync({ destination: { type: 'local', path: outDir }, state: { path: join(env.dir, 'reference.sqlite') } });
  return readTables(outDir);
}
