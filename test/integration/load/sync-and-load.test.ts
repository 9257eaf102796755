import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncAndLoad } from '../../../src/daemon/sync-and-load.js';
import { LoadError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { api, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { expectedDocs, withDuckdb } from './support.js';

/** The daemon's sync job: a load after each sync when the config has `load:`, and a failed load fails the job. */
let env: SyncEnv;
const run = (overrides: Record<string, unknown>) =>
  syncAndLoad(env.config(overrides), { logger: silentLogger(), signal: new AbortController().signal });

beforeAll(async () => {
  env = await startSyncEnv({ seed: 54, conversations: 12 });
});
afterAll(async () => {
  await env?.close();
});

describe('the daemon: sync, then load', () => {
  it('without load: in the config nothing is loaded; with it, each sync is followed by a load of what it wrote', async () => {
    const path = join(env.dir, 'daemon.duckdb');
    expect((await run({})).summary.status).toBe('succeeded');
    expect(existsSync(path)).toBe(false);
    await run({ load: { into: `duckdb:${path}` } });
    const body = (await api(env.sandbox, 'POST', '/search', { page: 1, per_page: 1 })) as {
      data: { conversations: { data: Array<{ id: string }> } };
    };
    await api(env.sandbox, 'PATCH', `/conversation/${body.data.conversations.data[0]!.id}`, { status: 'Closed' });
    await run({ load: { into: `duckdb:${path}` } });
    await withDuckdb(path, async (read) => {
      expect((await read('SELECT run_id FROM helpdesk_loaded_manifests')).length).toBe(3);
      const [{ n }] = (await read('SELECT count(*)::int AS n FROM conversations')) as [{ n: number }];
      expect(n).toBe(expectedDocs(env.outDir, 'conversations').size);
    });
  });

  it('a load that fails fails the job (the sync before it is committed)', async () => {
    const notAFile = join(env.dir, 'a-directory.duckdb');
    mkdirSync(notAFile);
    await expect(run({ load: { into: `duckdb:${notAFile}` } })).rejects.toBeInstanceOf(LoadError);
  });

  it('a partial sync is loaded too: what it committed is consistent', async () => {
    const offsite = await startSyncEnv({ seed: 54, conversations: 12, quirks: 'offsite-redirect' });
    try {
      const path = join(offsite.dir, 'partial.duckdb');
      const result = await syncAndLoad(offsite.config({ load: { into: `duckdb:${path}` } }), {
        logger: silentLogger(),
        signal: new AbortController().signal,
      });
      expect(result.summary.status).toBe('partial');
      await withDuckdb(path, async (read) => {
        expect(await read('SELECT run_id FROM helpdesk_loaded_manifests')).toEqual([{ run_id: result.summary.run_id }]);
        const [{ n }] = (await read('SELECT count(*)::int AS n FROM conversations')) as [{ n: number }];
        expect(n).toBe(expectedDocs(offsite.outDir, 'conversations').size);
        expect(n).toBeGreaterThan(0);
      });
    } finally {
      await offsite.close();
    }
  });
});
