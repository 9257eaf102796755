import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { unexplainedCount } from '../../../src/verify/format-verify-report.js';
import { verifyJob } from '../../../src/verify/verify-job.js';
import { runCli } from './cli-run.js';
import { allConversations, api, type SyncEnv, startSyncEnv } from './support.js';

/**
 * `helpdesk-sync verify` after a sync: quiet when nothing differs; a change
 * through the API is explained (the next sync's); a row deleted from an output
 * file by hand and a conversation changed behind the state's back (its subject
 * rewritten without moving updated_at) are unexplained and exit 1.
 */
let env: SyncEnv;
let config: string;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 45, conversations: 150 });
  config = env.configFile('verify.json', { log: { level: 'error' } });
  expect((await env.sync()).summary.status).toBe('succeeded');
});
afterAll(async () => {
  await env?.close();
});

const verify = (output: boolean, sample = 0) =>
  verifyJob(env.config({ log: { level: 'error' } }), { output, sample, logger: silentLogger() });

/** The first committed file of a table. */
function firstFile(table: string): string {
  const dir = join(env.outDir, table);
  const [partition] = readdirSync(dir);
  const [file] = readdirSync(join(dir, partition!));
  return join(dir, partition!, file!);
}

/** Rewrites the first conversations file without one of its rows, as an operator editing it by hand would; returns its id. */
function deleteRowByHand(): string {
  const path = firstFile('conversations');
  const lines = gunzipSync(readFileSync(path)).toString('utf8').split('\n').filter(Boolean);
  const victim = JSON.parse(lines[3]!).id as string;
  writeFileSync(path, gzipSync(`${lines.filter((_, k) => k !== 3).join('\n')}\n`));
  return victim;
}

describe('helpdesk-sync verify', () => {
  it('states its cost first, finds nothing after a clean sync, and compares a sample field by field', async () => {
    const cli = await runCli(['verify', '--config', config, '--output', '--sample', '5']);
    expect(cli.code, cli.stderr).toBe(0);
    const lines = cli.stdout.split('\n');
    expect(lines[0]).toMatch(/^verify costs about \d+ requests .*reads \d+ committed files/);
    expect(cli.stdout).toContain('verify: no unexplained difference');
    const report = await verify(true, 5);
    expect(report.sampled).toBe(5);
    expect(report.findings).toEqual([]);
    const conversations = report.counts.find((c) => c.subject === 'conversations')!;
    expect(conversations.api).toBeGreaterThan(100);
    expect(conversations).toEqual({
      subject: 'conversations',
      api: conversations.api,
      state: conversations.api,
      output: conversations.api,
    });
    expect(report.counts.find((c) => c.subject === 'messages')?.output).toBeGreaterThan(conversations.api!);

    // A message row edited in its file: the sample (here every conversation) finds the field.
    const path = firstFile('messages');
    const original = readFileSync(path);
    const rows = gunzipSync(original)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    rows[0].text_body = 'edited in the file';
    writeFileSync(path, gzipSync(`${rows.map((r) => JSON.stringify(r)).join('\n')}\n`));
    try {
      const all = await verify(true, 1000);
      expect(all.sampled).toBe(conversations.api);
      expect(all.findings).toEqual([
        expect.objectContaining({ kind: 'row_differs', count: 1, examples: [`messages ${rows[0].id} (text_body)`] }),
      ]);
    } finally {
      writeFileSync(path, original);
    }
  });

  it('a change through the API since the last sync is explained; --sample without --output is a usage error', async () => {
    const id = (await allConversations(env.sandbox))[0]!.id as string;
    await api(env.sandbox, 'POST', `/conversation/${id}/note`, { message: 'seen' });
    const report = await verify(false);
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'changed_since_last_sync', count: 1, examples: [id], explained: true }),
    ]);
    expect(unexplainedCount(report)).toBe(0);
    const usage = await runCli(['verify', '--config', config, '--sample', '3']);
    expect(usage.code).toBe(64);
    expect(usage.stderr).toContain('add --output');
    // The next sync takes the change; verify is quiet again.
    await env.sync();
    expect((await verify(false)).findings).toEqual([]);
  });

  it('finds a row deleted from an output file by hand and a conversation changed behind the state’s back; exit 1', async () => {
    const victim = deleteRowByHand();
    const { store } = env.sandbox;
    const index = store.conversations.indexOf(pickOther(victim))!;
    const changed = store.conversations.edit(index);
    changed.subject = 'rewritten without moving updated_at';
    store.conversations.save(changed);

    const cli = await runCli(['verify', '--config', config, '--output']);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toMatch(/UNEXPLAINED conversations missing_from_output 1 .*: /);
    expect(cli.stdout).toContain(victim);
    expect(cli.stdout).toMatch(/UNEXPLAINED conversations changed_behind_state 1 /);
    expect(cli.stdout).toContain(changed.id);
    expect(cli.stdout).toContain('verify: 2 unexplained difference(s)');
    // The listing alone (the default, cheap) sees the change, not the file.
    const listingOnly = await verify(false);
    expect(listingOnly.findings.map((f) => [f.kind, f.explained])).toEqual([['changed_behind_state', false]]);
  });
});

/** A listed conversation other than `id`, from the sandbox's own list. */
function pickOther(id: string): string {
  const { store } = env.sandbox;
  const org = store.world.organizations[0]!.id;
  for (let i = store.table.count - 1; i >= 0; i--) {
    if (!store.conversations.exists(i)) continue;
    const s = store.conversations.get(i);
    if (s.organizationId === org && s.id !== id) return s.id;
  }
  throw new Error('no other conversation');
}
