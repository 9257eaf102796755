import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import { content, merged, readTables, type SyncEnv, startSyncEnv } from './support.js';

const THREADS = 'GET /v1/conversation/:conversation_id/messages';
const threadRequests = (env: SyncEnv) => {
  const route = env.sandbox.stats().by_route[THREADS] ?? {};
  return Object.values(route).reduce((a, b) => a + b, 0);
};

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 5, conversations: 300 });
});
afterAll(async () => {
  await env?.sandbox.close();
});

/** Runs `helpdesk-sync sync` in a child process and SIGKILLs it once `killWhen` holds. */
async function syncKilledWhen(configPath: string, killWhen: () => boolean): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sync', '--config', configPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setInterval(() => {
    if (killWhen()) child.kill('SIGKILL');
  }, 20);
  const [code, signal] = (await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])))) as [
    number | null,
    NodeJS.Signals | null,
  ];
  clearInterval(timer);
  if (signal !== 'SIGKILL') throw new Error(`sync ended before the kill (exit ${code}): ${stderr}`);
  return signal;
}

describe('a sync killed with SIGKILL in the middle of the messages stream', () => {
  it('resumes without re-fetching committed threads, and loses nothing', async () => {
    const slow = env.config({
      source: {
        base_url: env.sandbox.baseUrl,
        token: 'sandbox-admin',
        rate_limit: { requests_per_minute: 1200, concurrency: 2 },
      },
      checkpoint: { every_rows: 200, every_seconds: 1 },
      log: { level: 'error' },
    });
    const configPath = join(env.dir, 'slow.json');
    writeFileSync(configPath, JSON.stringify(slow));
    await syncKilledWhen(configPath, () => threadRequests(env) >= 150);
    const fetchedBeforeKill = threadRequests(env);

    const db = new Database(env.statePath, { readonly: true });
    const committed = (
      db.prepare('SELECT COUNT(*) AS n FROM kv_state WHERE scope = ?').get(SCOPES.threadAt) as { n: number }
    ).n;
    db.close();
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(fetchedBeforeKill + 1);

    const { summary } = await env.sync();
    expect(summary.status).toBe('succeeded');
    const refetched = threadRequests(env) - fetchedBeforeKill;
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
  const { syncJob } = await import('../../../src/sync/sync-job.js');
  const { silentLogger } = await import('../../../src/log.js');
  const outDir = join(env.dir, 'reference-out');
  await syncJob(
    env.config({ destination: { type: 'local', path: outDir }, state: { path: join(env.dir, 'reference.sqlite') } }),
    { logger: silentLogger() },
  );
  return readTables(outDir);
}
