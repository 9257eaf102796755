import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type CliResult, runCli } from './cli-run.js';
import { merged, readTables } from './support.js';

/**
 * Several accounts in one config, over HTTP against a sandbox serving several
 * organizations behind one per-IP limiter (docs/operations.md, "Several
 * accounts"): one process syncs them all through one shared budget, each
 * account's output equals what its organization holds, one account's failure
 * is its own, a bad config costs no request, and shards sent from two loopback
 * addresses each spend their own address's budget.
 */

interface Env {
  sandbox: RunningSandbox;
  dir: string;
}

const envs: Env[] = [];
afterEach(async () => {
  for (const env of envs.splice(0)) {
    await env.sandbox.close().catch(() => undefined);
    rmSync(env.dir, { recursive: true, force: true });
  }
});

async function newEnv(options: Parameters<typeof startSandbox>[0]): Promise<Env> {
  const env = {
    sandbox: await startSandbox({ port: 0, seed: 7, ...options }),
    dir: mkdtempSync(join(tmpdir(), 'hs-accounts-')),
  };
  envs.push(env);
  return env;
}

/** A config file listing `accounts`, tokens from the environment (written nowhere by the test). */
function configFile(env: Env, accounts: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  const path = join(env.dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      source: { rate_limit: { requests_per_minute: 100_000 } },
      accounts,
      reports: { lookback_days: 1 },
      destination: { type: 'local', path: join(env.dir, 'out') },
      state: { path: join(env.dir, 'state', 'state.sqlite') },
      ...extra,
    }),
  );
  return path;
}

/** The account entries of the sandbox's organizations, each token read from `<SLUG>_TOKEN`. */
function accountsOf(env: Env, names = env.sandbox.organizations.map((o) => o.slug)) {
  return names.map((slug) => ({
    name: slug,
    base_url: env.sandbox.baseUrl,
    token: `\${${slug.toUpperCase()}_TOKEN}`,
  }));
}

function tokens(env: Env): Record<string, string> {
  return Object.fromEntries(env.sandbox.organizations.map((o) => [`${o.slug.toUpperCase()}_TOKEN`, o.tokens.admin]));
}

const sync = (env: Env, config: string, args: string[] = [], extraEnv: Record<string, string> = {}) =>
  runCli(['sync', '--config', config, ...args], { env: { ...tokens(env), ...extraEnv } });

/** The conversation ids of one organization, as the sandbox holds them. */
function apiConversations(env: Env, slug: string): string[] {
  const { store } = env.sandbox;
  const org = store.world.organizations.find((o) => o.slug === slug)?.id;
  const ids: string[] = [];
  for (let i = 0; i < store.table.count; i++) {
    if (!store.conversations.exists(i)) continue;
    const c = store.conversations.get(i);
    if (c.organizationId === org) ids.push(c.id);
  }
  return ids.sort();
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function expectNoToken(env: Env, run: CliResult): void {
  for (const o of env.sandbox.organizations) {
    expect(run.stdout).not.toContain(o.tokens.admin);
    expect(run.stderr).not.toContain(o.tokens.admin);
  }
}

describe('several accounts in one config', () => {
  it('one process syncs every account into its own state and output; each equals its organization', async () => {
    const env = await newEnv({ organizations: [120, 60, 20], rateLimit: 1_000_000 });
    const run = await sync(env, configFile(env, accountsOf(env)));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('accounts: acme succeeded, globex succeeded, initech succeeded');
    expectNoToken(env, run);
    for (const { slug, conversations } of env.sandbox.organizations) {
      const rows = merged(readTables(join(env.dir, 'out', slug)).conversations);
      expect([...rows.keys()].sort(), slug).toEqual(apiConversations(env, slug));
      expect(rows.size).toBe(conversations);
      // Its own state and manifests, in folders named after it.
      expect(existsSync(join(env.dir, 'state', slug, 'state.sqlite')), slug).toBe(true);
      expect(walk(join(env.dir, 'out', slug, '_manifests')), slug).toHaveLength(1);
    }
    // Every request from this process's one address, spent by the three organizations.
    const stats = env.sandbox.stats();
    expect(Object.keys(stats.by_organization).sort()).toEqual(['acme', 'globex', 'initech']);
  });

  it('shares one budget: the accounts pace together, and the small one commits before the large one', async () => {
    // 30 requests a second for the client IP; the config asks the same (1 800 a minute) over a 1 s window.
    const env = await newEnv({ organizations: [150, 60, 10], rateLimit: 30, rateWindowSeconds: 1 });
    const config = configFile(env, accountsOf(env), {
      source: { rate_limit: { requests_per_minute: 1800, window_seconds: 1 } },
    });
    const run = await sync(env, config, ['--log-format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const stats = env.sandbox.stats();
    // One budget paced as one: no 429 at all with the window configured.
    expect(stats.by_status['429'] ?? 0).toBe(0);
    const finished = new Map<string, number>();
    for (const line of run.stderr.split('\n')) {
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line) as { event?: string; account?: string; time?: number };
      if (event.event === 'sync.summary' && event.account && event.time) finished.set(event.account, event.time);
    }
    expect([...finished.keys()].sort()).toEqual(['acme', 'globex', 'initech']);
    expect(finished.get('initech')).toBeLessThan(finished.get('acme') as number);
  });

  it("one account's failure is its own: the others commit, the summary names it, exit 3", async () => {
    const env = await newEnv({ organizations: [40, 20], rateLimit: 1_000_000 });
    const accounts = accountsOf(env);
    const config = configFile(env, accounts);
    const run = await sync(env, config, [], { GLOBEX_TOKEN: 'not-a-token-of-anyone' });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/account globex failed \(API_UNAUTHORIZED\)/);
    expect(run.stdout).toContain('accounts: acme succeeded, globex failed (API_UNAUTHORIZED)');
    const acme = merged(readTables(join(env.dir, 'out', 'acme')).conversations);
    expect([...acme.keys()].sort()).toEqual(apiConversations(env, 'acme'));
    expect(walk(join(env.dir, 'out', 'globex', '_manifests'))).toEqual([]);
    // Healed, the next run completes globex and touches acme's state only as a quiet run does.
    const healed = await sync(env, config);
    expect(healed.code, healed.stdout).toBe(0);
    const globex = merged(readTables(join(env.dir, 'out', 'globex')).conversations);
    expect([...globex.keys()].sort()).toEqual(apiConversations(env, 'globex'));
  });

  it('adding or removing an account touches no other account: the others run as quiet runs', async () => {
    const env = await newEnv({ organizations: [30, 10], rateLimit: 1_000_000 });
    const summaries = (run: CliResult) => {
      const out = new Map<
        string,
        { conversations_changed: number; tables: Partial<Record<string, { rows: number }>> }
      >();
      for (const line of run.stderr.split('\n')) {
        if (!line.startsWith('{')) continue;
        const e = JSON.parse(line) as { event?: string; account?: string; summary?: never };
        if (e.event === 'sync.summary' && e.account && e.summary) out.set(e.account, e.summary);
      }
      return out;
    };
    const json = ['--log-format', 'json'];
    const first = await sync(env, configFile(env, accountsOf(env, ['acme'])), json);
    expect(first.code, first.stderr).toBe(0);
    expect(summaries(first).get('acme')?.conversations_changed).toBe(30);
    // globex added: a first sync for it, a quiet run for acme (nothing written again).
    const added = await sync(env, configFile(env, accountsOf(env)), json);
    expect(added.code, added.stderr).toBe(0);
    expect(summaries(added).get('globex')?.conversations_changed).toBe(10);
    expect(summaries(added).get('acme')?.conversations_changed).toBe(0);
    expect(summaries(added).get('acme')?.tables.conversations?.rows).toBe(0);
    // globex removed: acme quiet again; globex's own state stays where it was, for when it comes back.
    const removed = await sync(env, configFile(env, accountsOf(env, ['acme'])), json);
    expect(removed.code).toBe(0);
    expect([...summaries(removed).keys()]).toEqual(['acme']);
    expect(summaries(removed).get('acme')?.conversations_changed).toBe(0);
    expect(existsSync(join(env.dir, 'state', 'globex', 'state.sqlite'))).toBe(true);
  });

  it('an invalid config lists every problem with its path, exits 64, and sends no request', async () => {
    const env = await newEnv({ organizations: [10, 10], rateLimit: 1_000_000 });
    const url = env.sandbox.baseUrl;
    const config = configFile(
      env,
      [
        { name: 'acme', base_url: url, token: 'sandbox-admin' },
        { name: 'acme', base_url: url, token: 'globex-admin' },
        { name: '../up', base_url: url, token: 'initech-admin' },
        { name: 'again', base_url: `${url}/`, token: 'sandbox-admin' },
      ],
      { source: { base_url: url, rate_limit: { requests_per_minute: 100_000 } } },
    );
    const run = await runCli(['sync', '--config', config]);
    expect(run.code).toBe(64);
    // Off a terminal the logs are JSON: one command.failed line listing every issue by path.
    const failed = JSON.parse(run.stderr.trimEnd().split('\n').at(-1) ?? '') as {
      event: string;
      issues: Array<{ path: string; message: string }>;
    };
    expect(failed.event).toBe('command.failed');
    const issues = failed.issues.map((i) => `${i.path}: ${i.message}`);
    for (const problem of [
      'source.base_url: with accounts:, each account has its own base_url: move it there',
      'accounts.1.name: "acme" is the name of accounts.0 too',
      'accounts.2.name: expected 1 to 64 letters, digits, - or _',
      'accounts.3: the same base_url and token as accounts.0: one account listed twice',
    ]) {
      expect(
        issues.some((issue) => issue.startsWith(problem)),
        problem,
      ).toBe(true);
    }
    expect(run.stderr).not.toContain('sandbox-admin');
    expect(env.sandbox.stats().total).toBe(0);
  });

  it('shards sent from two loopback addresses each spend their own address budget, and together every account', async () => {
    const env = await newEnv({ organizations: [30, 20, 10, 10], rateLimit: 1_000_000 });
    const shardConfig = (address: string) =>
      configFile(env, accountsOf(env), {
        source: { rate_limit: { requests_per_minute: 100_000 }, local_address: address },
      });
    const [zero, one] = await Promise.all([
      sync(env, shardConfig('127.0.0.2'), ['--shard', '0/2']),
      sync(env, shardConfig('127.0.0.3'), ['--shard', '1/2']),
    ]);
    expect([zero.code, one.code], `${zero.stderr}\n${one.stderr}`).toEqual([0, 0]);
    const ran = (run: CliResult) => (/^shard \d\/2: (.*)$/m.exec(run.stdout)?.[1] ?? '').split(', ').filter(Boolean);
    // Every account in exactly one shard.
    const all = [...ran(zero), ...ran(one)].sort();
    expect(all).toEqual(env.sandbox.organizations.map((o) => o.slug).sort());
    // Each process's requests came from its own address only.
    const byIp = env.sandbox.stats().by_ip;
    for (const [run, address] of [
      [zero, '127.0.0.2'],
      [one, '127.0.0.3'],
    ] as const) {
      if (ran(run).length > 0) expect(byIp[address]?.total ?? 0, address).toBeGreaterThan(0);
    }
    expect(Object.keys(byIp).filter((ip) => ip !== '127.0.0.2' && ip !== '127.0.0.3')).toEqual([]);
    for (const { slug } of env.sandbox.organizations) {
      const rows = merged(readTables(join(env.dir, 'out', slug)).conversations);
      expect([...rows.keys()].sort(), slug).toEqual(apiConversations(env, slug));
    }
  });
});
