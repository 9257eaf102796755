import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../../support/pty-screen.js';
import { manifestsOf, withDuckdb } from '../load/support.js';
import { api, type SyncEnv, startSyncEnv } from '../sync/support.js';

/** Thirteen syncs, each with a change, so `load` has thirteen manifests to load. */
let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 13, conversations: 40 });
  const body = (await api(env.sandbox, 'POST', '/search', { page: 1, per_page: 20 })) as {
    data: { conversations: { data: Array<{ id: string }> } };
  };
  const ids = body.data.conversations.data.map((c) => c.id);
  expect((await env.sync()).summary.status).toBe('succeeded');
  // A run that writes nothing lists no file and leaves no manifest: each further run changes a conversation.
  for (let i = 0; manifestsOf(env.outDir).length < 13 && i < ids.length; i++) {
    await api(env.sandbox, 'PATCH', `/conversation/${ids[i]}`, { subject: `changed ${i}` });
    expect((await env.sync()).summary.status).toBe('succeeded');
  }
  expect(manifestsOf(env.outDir)).toHaveLength(13);
}, 120_000);
afterAll(async () => {
  await env?.close();
});

describe.each([80, 200])('load of 13 manifests in a %i-column terminal', (cols) => {
  it('shows the load in place and ends with one summary: no trail of progress lines', async () => {
    const target = join(env.dir, `load-${cols}.duckdb`);
    const config = env.configFile(`load-${cols}.json`);
    const run = await runInPty(['load', '--config', config, '--into', `duckdb:${target}`], { cols });
    const shown = run.screen.join('\n');
    expect(run.exitCode, shown).toBe(0);
    const summaries = run.screen.flatMap((line, i) =>
      /^load into duckdb:\S+ (\(from [^)]*\) )?succeeded in /.test(line) ? [i] : [],
    );
    expect(summaries, shown).toHaveLength(1);
    expect(run.screen[summaries[0] as number]).toMatch(/: 13 manifests loaded, 0 loaded before$/);
    // Nothing before the summary (no line per table, no stale progress), only its own lines after it.
    expect(summaries[0], shown).toBe(0);
    expect(
      run.screen.slice(1).every((line) => line.startsWith('  ')),
      shown,
    ).toBe(true);
    expect(
      run.screen.filter((line) => /manifests loaded \d+ of 13|^ {2}(loading|into) /.test(line)),
      shown,
    ).toEqual([]);
    expect(run.screen.filter((line) => line.includes('"event"'))).toEqual([]);
    // The block was drawn while it loaded, and what it says is true of the warehouse.
    expect(run.raw).toMatch(/manifests loaded \d+ of 13/);
    await withDuckdb(target, async (read) => {
      expect(await read('SELECT count(*)::int AS n FROM helpdesk_loaded_manifests')).toEqual([{ n: 13 }]);
    });
  });
});
