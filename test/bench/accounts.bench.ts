/**
 * Several accounts under one client IP's budget (docs/performance.md, "Several accounts";
 * docs/accounts.md). The built CLI (`npm run build` first), the sandbox in a process of its
 * own at its default limit (300 requests per 60 s per client IP), every sync a process of its
 * own, a new user's defaults but for the reports' start (yesterday, as every sync bench):
 *
 * - one process: three accounts of 1 000, 300 and 50 conversations in one config;
 * - three processes: the same three accounts, one config and one process each, started at
 *   once, as users run them without `accounts:`;
 * - the optimum: the combined requests N at the fixed-window limit L per window W:
 *   (⌈N ÷ L⌉ − 1) × W, plus the last window's requests at the pace of the same one-process
 *   sync against an unlimited sandbox;
 * - shards: two accounts of equal size (600 and 600) in one process, then as two shards
 *   (`--shard 0/2`, `--shard 1/2`) sent from 127.0.0.2 and 127.0.0.3 at once.
 *
 * Printed for each run: total time, time ÷ optimum, 429s, each account's first and last
 * commit, peak RSS. Targets: one process ≤ 1.05 × the optimum, ≤ 1 probe 429, the
 * 50-conversation account committed whole within the first two windows; the sharded pair ≤
 * 0.55 × one process's time.
 *
 *   npm run bench -- accounts [--accounts-sizes=1000,300,50] [--accounts-shard-size=600]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './support/bench-option.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const LIMIT = 300;
const WINDOW_MS = 60_000;
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

interface Sandbox {
  baseUrl: string;
  organizations: Array<{ slug: string; token: string }>;
  stats(): Promise<{ total: number; by_status: Record<string, number> }>;
  stop(): void;
}

/** A sandbox of the given organizations in a process of its own; `unlimited` lifts its limit. */
async function sandbox(sizes: number[], unlimited = false): Promise<Sandbox> {
  const args = ['sandbox', '--port', '0', '--organizations', sizes.join(',')];
  if (unlimited) args.push('--rate-limit', '100000000');
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c) => {
      out += c;
      const match = /listening on (\S+\/v1)/.exec(out);
      if (match && /Organizations: .*\n/.test(out)) resolve(match[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const organizations = [...out.matchAll(/(\w+) \d+ \((\w+-admin), \w+-agent\)/g)].map((m) => ({
    slug: m[1] as string,
    token: m[2] as string,
  }));
  return {
    baseUrl,
    organizations,
    stats: async () => (await (await fetch(`${new URL(baseUrl).origin}/_sandbox/stats`)).json()) as never,
    stop: () => void child.kill('SIGTERM'),
  };
}

interface Account {
  name: string;
  slug: string;
  token: string;
}

function writeConfig(dir: string, file: string, body: Record<string, unknown>): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    JSON.stringify({
      reports: { start_date: day(1), lookback_days: 1 },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state', 'state.sqlite') },
      ...body,
    }),
  );
  return path;
}

const accountsConfig = (dir: string, file: string, base: string, accounts: Account[], source = {}) =>
  writeConfig(dir, file, {
    source,
    accounts: accounts.map((a) => ({ name: a.name, base_url: base, token: `\${TOKEN_${a.slug.toUpperCase()}}` })),
  });

const tokensEnv = (accounts: Account[]) =>
  Object.fromEntries(accounts.map((a) => [`TOKEN_${a.slug.toUpperCase()}`, a.token]));

interface Run {
  ms: number;
  peakRssMb: number;
  code: number | null;
  /** Per account: ms from the start to its first checkpoint and to its manifest. */
  commits: Map<string, { first?: number; last?: number }>;
}

/** One CLI process, timed, its peak RSS from GNU time, its JSON events read for the commit times. */
async function cli(args: string[], env: Record<string, string>, startedAt: number, label?: string): Promise<Run> {
  const rssFile = join(tmpdir(), `hs-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const child = spawn(
    '/usr/bin/time',
    ['-f', '%M', '-o', rssFile, process.execPath, CLI, ...args, '--log-format', 'json'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      // Checkpoints are logged at debug: their times are each account's commits.
      env: { ...process.env, LOG_LEVEL: 'debug', ...env },
    },
  );
  let err = '';
  child.stderr?.on('data', (c) => {
    err += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = performance.now() - startedAt;
  const commits = new Map<string, { first?: number; last?: number }>();
  const wallStart = Date.now() - ms;
  for (const line of err.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as { event?: string; account?: string; time?: number };
    const account = e.account ?? label;
    if (!account || !e.time) continue;
    const at = commits.get(account) ?? {};
    if (e.event === 'output.checkpoint') at.first ??= e.time - wallStart;
    if (e.event === 'output.manifest') at.last = e.time - wallStart;
    commits.set(account, at);
  }
  const peakRssMb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) / 1024;
  rmSync(rssFile, { force: true });
  if (code !== 0) process.stdout.write(`  (exit ${code}: ${err.split('\n').slice(-3).join(' | ')})\n`);
  return { ms, peakRssMb, code, commits };
}

const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

function optimumMs(requests: number, unlimitedMs: number, unlimitedRequests: number): number {
  const windows = Math.ceil(requests / LIMIT);
  const last = requests - (windows - 1) * LIMIT;
  return (windows - 1) * WINDOW_MS + (last / unlimitedRequests) * unlimitedMs;
}

async function scenario<T>(sizes: number[], run: (box: Sandbox, dir: string) => Promise<T>, unlimited = false) {
  const box = await sandbox(sizes, unlimited);
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-accounts-'));
  try {
    const result = await run(box, dir);
    return { result, stats: await box.stats() };
  } finally {
    box.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function accountsBench(args: string[]) {
  const sizes = option(args, 'accounts-sizes', '1000,300,50').split(',').map(Number);
  const shardSize = Number(option(args, 'accounts-shard-size', '600'));
  const load = loadavg()[0]?.toFixed(2);
  process.stdout.write(`accounts of ${sizes.join(', ')} conversations; 300 per 60 s per client IP; load ${load}\n`);
  const accountsOf = (box: Sandbox, names?: string[]): Account[] =>
    box.organizations.map((o, i) => ({ name: names?.[i] ?? o.slug, slug: o.slug, token: o.token }));

  // The yardstick: the same one-process sync with the limit lifted.
  const unlimited = await scenario(
    sizes,
    async (box, dir) => {
      const accounts = accountsOf(box);
      const config = accountsConfig(dir, 'c.json', box.baseUrl, accounts, {
        rate_limit: { requests_per_minute: 100_000 },
      });
      return cli(['sync', '--config', config], tokensEnv(accounts), performance.now());
    },
    true,
  );
  const one = await scenario(sizes, async (box, dir) => {
    const accounts = accountsOf(box);
    return cli(
      ['sync', '--config', accountsConfig(dir, 'c.json', box.baseUrl, accounts)],
      tokensEnv(accounts),
      performance.now(),
    );
  });
  const three = await scenario(sizes, async (box, dir) => {
    const accounts = accountsOf(box);
    const started = performance.now();
    return Promise.all(
      accounts.map((a) => {
        const sub = join(dir, a.slug);
        const config = writeConfig(dir, `${a.slug}.json`, {
          source: { base_url: box.baseUrl, token: a.token },
          destination: { type: 'local', path: join(sub, 'out') },
          state: { path: join(sub, 'state.sqlite') },
        });
        return cli(['sync', '--config', config], {}, started, a.slug);
      }),
    );
  });

  const requests = one.stats.total;
  const optimum = optimumMs(requests, unlimited.result.ms, unlimited.stats.total);
  process.stdout.write(`\ncombined requests ${requests}; fixed-window optimum ${s(optimum)}\n`);
  process.stdout.write('run              time     ÷ optimum  429s  peak RSS\n');
  const row = (name: string, ms: number, limited: number, rss: number) =>
    process.stdout.write(
      `${name.padEnd(16)} ${s(ms).padStart(8)}  ${(ms / optimum).toFixed(3).padStart(9)}  ${String(limited).padStart(4)}  ${rss.toFixed(0)} MB\n`,
    );
  row('one process', one.result.ms, one.stats.by_status['429'] ?? 0, one.result.peakRssMb);
  const threeMs = Math.max(...three.result.map((r) => r.ms));
  row('three processes', threeMs, three.stats.by_status['429'] ?? 0, Math.max(...three.result.map((r) => r.peakRssMb)));
  process.stdout.write('\ncommits (from the start)   one process: first / last     three processes: first / last\n');
  const threeCommits = new Map(three.result.flatMap((r) => [...r.commits]));
  for (const [account, c] of one.result.commits) {
    const t = threeCommits.get(account);
    process.stdout.write(
      `  ${account.padEnd(24)} ${s(c.first).padStart(8)} / ${s(c.last).padEnd(8)}          ${s(t?.first).padStart(8)} / ${s(t?.last)}\n`,
    );
  }

  // Shards: two equal accounts, named so that one falls in each shard of two.
  const pairSizes = [shardSize, shardSize];
  const names = ['brand-b', 'brand-a'];
  const pairOne = await scenario(pairSizes, async (box, dir) => {
    const accounts = accountsOf(box, names);
    return cli(
      ['sync', '--config', accountsConfig(dir, 'c.json', box.baseUrl, accounts)],
      tokensEnv(accounts),
      performance.now(),
    );
  });
  const pairSharded = await scenario(pairSizes, async (box, dir) => {
    const accounts = accountsOf(box, names);
    const started = performance.now();
    return Promise.all(
      ['127.0.0.2', '127.0.0.3'].map((address, index) => {
        const config = accountsConfig(dir, `shard-${index}.json`, box.baseUrl, accounts, { local_address: address });
        return cli(
          ['sync', '--config', config, '--shard', `${index}/2`],
          tokensEnv(accounts),
          started,
          `shard ${index}`,
        );
      }),
    );
  });
  const shardedMs = Math.max(...pairSharded.result.map((r) => r.ms));
  process.stdout.write(
    `\nshards: two accounts of ${shardSize}: one process ${s(pairOne.result.ms)}; two shards from 127.0.0.2 and 127.0.0.3 ${s(shardedMs)} ` +
      `(${(shardedMs / pairOne.result.ms).toFixed(2)} × one process; 429s ${pairSharded.stats.by_status['429'] ?? 0})\n`,
  );

  const small = [...one.result.commits.entries()].find(
    ([name]) => name === accountsOfSmallest(sizes, one.result.commits),
  );
  const results = {
    load_average: Number(load),
    sizes,
    requests,
    optimum_ms: Math.round(optimum),
    one_process: {
      ms: Math.round(one.result.ms),
      ratio: one.result.ms / optimum,
      rate_limited: one.stats.by_status['429'] ?? 0,
      peak_rss_mb: Math.round(one.result.peakRssMb),
    },
    three_processes: {
      ms: Math.round(threeMs),
      ratio: threeMs / optimum,
      rate_limited: three.stats.by_status['429'] ?? 0,
    },
    commits: Object.fromEntries([...one.result.commits].map(([a, c]) => [a, { first_ms: c.first, last_ms: c.last }])),
    shards: {
      one_process_ms: Math.round(pairOne.result.ms),
      sharded_ms: Math.round(shardedMs),
      ratio: shardedMs / pairOne.result.ms,
    },
  };
  const misses: string[] = [];
  if (results.one_process.ratio > 1.05)
    misses.push(`one process at ${results.one_process.ratio.toFixed(3)} × the optimum (target ≤ 1.05)`);
  if (results.one_process.rate_limited > 1)
    misses.push(`${results.one_process.rate_limited} 429s in one process (target ≤ 1)`);
  if (small?.[1].last === undefined || small[1].last > 2 * WINDOW_MS) {
    misses.push(`the smallest account committed whole at ${s(small?.[1].last)} (target within the first two windows)`);
  }
  if (results.shards.ratio > 0.55)
    misses.push(`the sharded pair at ${results.shards.ratio.toFixed(2)} × one process (target ≤ 0.55)`);
  for (const miss of misses) process.stdout.write(`MISSED: ${miss}\n`);
  if (misses.length > 0) throw Object.assign(new Error(misses.join('; ')), { results });
  return results;
}

/** The name of the account with the fewest conversations (the sandbox names accounts after its organizations). */
function accountsOfSmallest(sizes: number[], commits: Map<string, unknown>): string {
  const names = [...commits.keys()];
  const order = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'soylent', 'tyrell', 'massive'];
  const smallest = sizes.indexOf(Math.min(...sizes));
  return order[smallest] ?? names.at(-1) ?? '';
}
