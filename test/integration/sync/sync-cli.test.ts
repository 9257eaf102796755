import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-run.js';
import { type SyncEnv, startSyncEnv, threadRequests } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 8, conversations: 60 });
});
afterAll(async () => {
  await env?.close();
});

function writeConfig(name: string, body: unknown): string {
  const path = join(env.dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
}

const base = () => ({
  source: { base_url: env.sandbox.baseUrl, token: '${HELPDESK_TOKEN}', rate_limit: { requests_per_minute: 100000 } },
  destination: { type: 'local', path: env.outDir },
  state: { path: env.statePath },
  reports: { lookback_days: 0 },
});

describe('helpdesk-sync sync and check from the command line', () => {
  it('skips users (not fails) when the token lacks users:read', async () => {
    const agent = await startSyncEnv({ seed: 8, conversations: 20, token: 'sandbox-agent' });
    const { summary } = await agent.sync().finally(() => agent.close());
    expect(summary.status).toBe('succeeded');
    expect(summary.skipped_streams.map((s) => s.stream)).toEqual(['users']);
    expect(summary.warnings.some((w) => w.code === 'STREAM_SKIPPED')).toBe(true);
  });

  it('skips business hours and holidays (not fails) with a partner-issued token, naming the setting', async () => {
    const partner = await startSyncEnv({ seed: 8, conversations: 20, token: 'sandbox-partner' });
    const { summary } = await partner.sync().finally(() => partner.close());
    expect(summary.status).toBe('succeeded');
    expect(summary.tables.conversations?.rows).toBeGreaterThan(0);
    expect(summary.skipped_streams).toEqual([
      {
        stream: 'business_hours',
        reason:
          'business_hours skipped: GET /business-hours answered 403 (its operations accept only a personal access ' +
          'token; a partner-issued token is refused); the run goes on without it. If this token is not meant to read ' +
          'it, leave business_hours out of `streams:` in the config.',
      },
      {
        stream: 'holidays',
        reason:
          'holidays skipped: GET /holidays answered 403 (its operations accept only a personal access token; a ' +
          'partner-issued token is refused); the run goes on without it. If this token is not meant to read it, ' +
          'leave holidays out of `streams:` in the config.',
      },
    ]);
  });

  it('exits 64 on an empty --streams list instead of syncing every stream', async () => {
    const before = env.sandbox.stats().total;
    const result = await runCli(['sync', '--streams', '', '--config', writeConfig('empty-streams.json', base())], {
      env: { HELPDESK_TOKEN: 'sandbox-admin' },
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('--streams: list at least one stream');
    expect(env.sandbox.stats().total).toBe(before);
  });

  it('exits 64 on an invalid config, listing every problem, before any request', async () => {
    const before = env.sandbox.stats().total;
    const path = writeConfig('bad.yaml', {
      ...base(),
      streams: ['conversations', 'tickets'],
      destination: { type: 'local', max_records_per_file: 0 },
    });
    const result = await runCli(['sync', '--config', path], { env: { HELPDESK_TOKEN: '' } });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('source.token: environment variable HELPDESK_TOKEN is not set');
    expect(result.stderr).toMatch(/streams\.1: /);
    expect(result.stderr).toMatch(/destination\.max_records_per_file: /);
    expect(env.sandbox.stats().total).toBe(before);
  });

  it('exits 64 on an unknown option, and on a daemon config that schedules nothing', async () => {
    const unknown = await runCli(['sync', '--no-such-flag']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/unknown option '--no-such-flag'/);
    const path = writeConfig('nothing-scheduled.json', base());
    const daemon = await runCli(['daemon', '--config', path], { env: { HELPDESK_TOKEN: 'sandbox-admin' } });
    expect(daemon.code).toBe(64);
    expect(daemon.stderr).toMatch(/schedules nothing/);
  });

  it('exits 64 on an unknown stream name in --streams', async () => {
    const path = writeConfig('ok.json', base());
    const result = await runCli(['sync', '--config', path, '--streams', 'conversations,tickets'], {
      env: { HELPDESK_TOKEN: 'sandbox-admin' },
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('--streams: unknown stream(s) tickets');
  });

  it('exits 1 with a clear message on a bad token, and never prints it', async () => {
    const token = 'definitely-wrong-token-4242';
    const path = writeConfig('token.json', base());
    const result = await runCli(['sync', '--config', path], { env: { HELPDESK_TOKEN: token } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
    expect(result.stderr).toMatch(/Unauthenticated/);
    expect(result.stdout + result.stderr).not.toContain(token);
  });

  it('syncs, then `state show` and `state reset --stream` report and forget', async () => {
    const path = writeConfig('good.json', base());
    const environment = { HELPDESK_TOKEN: 'sandbox-admin' };
    const sync = await runCli(['sync', '--config', path, '--streams', 'conversations,inboxes'], { env: environment });
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/succeeded/);
    expect(sync.stdout).toMatch(/conversations\s+\d+/);
    expect(readdirSync(join(env.outDir, '_manifests')).length).toBeGreaterThan(0);

    const show = await runCli(['state', 'show', '--config', path], { env: environment });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/conversations\s+\d+ conversations/);
    expect(show.stdout).toMatch(/last run \S+: finished/);

    const reset = await runCli(['state', 'reset', '--config', path, '--stream', 'inboxes'], { env: environment });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/reset inboxes: [1-9]\d* keys forgotten/);
    const after = await runCli(['state', 'show', '--config', path], { env: environment });
    expect(after.stdout).toMatch(/inboxes\s+0 inboxes/);
    expect(after.stdout).not.toMatch(/conversations\s+0 conversations/);
  });

  it('`check` passes with the admin token and reports the missing scope with the agent token', async () => {
    const path = writeConfig('check.json', base());
    const ok = await runCli(['check', '--config', path], { env: { HELPDESK_TOKEN: 'sandbox-admin' } });
    expect(ok.stdout).not.toMatch(/FAIL/);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ok\s+api: GET \/me answers/);
    expect(ok.stdout).toMatch(/ok\s+destination: /);
    expect(ok.stdout).toMatch(/ok\s+stream conversations: POST \/search answers/);
    const minePath = writeConfig('check-mine.json', {
      ...base(),
      source: { ...base().source, conversations_endpoint: 'mine' },
      streams: ['conversations'],
    });
    const mine = await runCli(['check', '--config', minePath], { env: { HELPDESK_TOKEN: 'sandbox-admin' } });
    expect(mine.stdout).toMatch(/ok\s+stream conversations: GET \/conversations\/mine answers/);
    // A 403 on a stream that sync skips is a warning, as in sync: the run would go on without it.
    const agent = await runCli(['check', '--config', path], { env: { HELPDESK_TOKEN: 'sandbox-agent' } });
    expect(agent.code, agent.stdout).toBe(0);
    expect(agent.stdout).toContain(
      'warn  stream users: users skipped: GET /settings/users answered 403 (the token lacks scope users:read); ' +
        'the run goes on without it. If this token is not meant to read it, leave users out of `streams:` in the config.',
    );
  });
});

describe('helpdesk-sync check on a spent rate budget', () => {
  it('prints each line as it is known, and says while it waits for the rate limit', async () => {
    // 3 requests per 2 s: check's dozen requests wait several seconds for budget.
    const { startSandbox } = await import('../../../src/sandbox/start.js');
    const slow = await startSandbox({ port: 0, seed: 8, conversations: 10, rateLimit: 3, rateWindowSeconds: 2 });
    try {
      const path = writeConfig('check-slow.json', {
        ...base(),
        source: {
          base_url: slow.baseUrl,
          token: 'sandbox-admin',
          rate_limit: { requests_per_minute: 90, window_seconds: 2 },
        },
      });
      const lines: Array<{ line: string; at: number }> = [];
      const started = Date.now();
      const result = await runCli(['check', '--config', path], {
        onStart: (child) =>
          child.stdout?.on('data', (chunk: Buffer) => {
            for (const line of String(chunk).split('\n').filter(Boolean))
              lines.push({ line, at: Date.now() - started });
          }),
      });
      expect(result.code, result.stdout).toBe(0);
      expect(lines[0]?.line).toBe(
        `checking ${path}: the API at ${slow.baseUrl}, each stream, the destination, the state`,
      );
      expect(result.stdout).toMatch(
        /\n {6}waiting for the API's rate limit \(\d+s so far\): an earlier run spent this window's requests\n/,
      );
      // Streamed, not printed at the end: the first result came well before the last.
      const first = lines.find((l) => l.line.startsWith('ok    api:'));
      const last = lines.find((l) => l.line.startsWith('ok    state:'));
      expect(first && last && first.at < last.at).toBe(true);
      expect(result.stdout.indexOf('ok    api:')).toBeLessThan(result.stdout.indexOf('waiting for'));
    } finally {
      await slow.close();
    }
  });
});

describe('helpdesk-sync sync stopped by a signal', () => {
  it('SIGTERM: stops taking work, commits what is complete, exits 143', async () => {
    const slow = await startSyncEnv({ seed: 9, conversations: 200 });
    try {
      const path = slow.configFile('slow.json', {
        source: { rate_limit: { requests_per_minute: 1200 } },
        streams: ['conversations', 'messages'],
      });
      const threads = () => threadRequests(slow.sandbox);
      let timer: NodeJS.Timeout | undefined;
      const result = await runCli(['sync', '--config', path], {
        onStart: (child) => {
          timer = setInterval(() => {
            if (threads() >= 40) {
              clearInterval(timer);
              child.kill('SIGTERM');
            }
          }, 20);
        },
      });
      clearInterval(timer);
      expect(result.code).toBe(143);
      expect(result.stdout).toMatch(/interrupted/);
      // `state show` says so too (the run wrote its manifest, but it is not a finished sync).
      const show = await runCli(['state', 'show', '--config', path]);
      expect(show.stdout).toMatch(
        /last run \S+: interrupted, started \S+, ended \S+ \(stopped by a signal: what was complete is committed, the next run resumes\)/,
      );
      // What was complete is committed: the next run fetches only the threads not yet committed.
      const before = threads();
      const { summary } = await slow.sync({ streams: ['conversations', 'messages'] });
      expect(threads() - before).toBeLessThan(summary.conversations_scanned);
      expect(threads() - before).toBe(summary.messages_fetched);
      expect(readdirSync(join(slow.outDir, '_manifests')).length).toBe(2);
    } finally {
      await slow.close();
    }
  });
});

describe('a sync that fails before it starts', () => {
  it('releases the run lock and leaves no spool behind', async () => {
    const { existsSync, mkdirSync } = await import('node:fs');
    const { syncJob } = await import('../../../src/sync/sync-job.js');
    const { silentLogger } = await import('../../../src/log.js');
    const broken = env.config({ state: { path: join(env.dir, 'not-a-db', 'state.sqlite') } });
    // A directory where the database file should be: opening the state fails after the lock is taken.
    mkdirSync(broken.state.path, { recursive: true });
    await expect(syncJob(broken, { logger: silentLogger() })).rejects.toThrow(/state database/);
    expect(existsSync(`${broken.state.path}.lock`)).toBe(false);
    expect(existsSync(join(env.dir, 'not-a-db', 'state.spool'))).toBe(false);
  });
});
