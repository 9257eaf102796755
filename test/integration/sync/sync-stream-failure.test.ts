import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';
import { withDuckdb } from '../load/support.js';
import { runCli } from './cli-run.js';
import { type FrontAnswer, startFrontProxy } from './front-proxy.js';
import { allConversations, api, daysAgo, merged, readTables, routeRequests } from './support.js';

/**
 * A failure confined to one stream fails that stream, not the run (docs/streams.md,
 * "When a stream fails"): the CLI against the sandbox over real sockets, with a
 * deployment that redirects GET /holidays to another origin, or whose tags route
 * answers 500. Every other stream commits, the manifest is written, the process
 * exits 3 and the next run retries the stream. A 401 and an unreachable host still
 * end the run at once (exit 1), and no stream runs after them.
 */

const TOKEN = 'sandbox-admin';
const SEED = 23;
/** Across both organizations: the token's own sees about half. */
const CONVERSATIONS = 460;

interface Env {
  sandbox: RunningSandbox;
  dir: string;
  outDir: string;
}

const envs: Env[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  for (const env of envs.splice(0)) {
    await env.sandbox.close().catch(() => undefined);
    rmSync(env.dir, { recursive: true, force: true });
  }
});

async function start(quirks?: string, port = 0): Promise<RunningSandbox> {
  return startSandbox({ port, seed: SEED, conversations: CONVERSATIONS, rateLimit: 1_000_000, quirks });
}

async function newEnv(quirks?: string): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), 'hs-stream-failure-'));
  const env = { sandbox: await start(quirks), dir, outDir: join(dir, 'out') };
  envs.push(env);
  return env;
}

/** A config file whose token comes from the environment, so the token is written nowhere by the test. */
function configFile(env: Env, baseUrl = env.sandbox.baseUrl): string {
  const path = join(env.dir, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      source: { base_url: baseUrl, token: '${HELPDESK_TOKEN}', rate_limit: { requests_per_minute: 100_000 } },
      reports: { start_date: daysAgo(2), lookback_days: 1 },
      destination: { type: 'local', path: env.outDir },
      state: { path: join(env.dir, 'state', 'state.sqlite') },
    }),
  );
  return path;
}

const sync = (config: string, args: string[] = [], token = TOKEN) =>
  runCli(['sync', '--config', config, ...args], { env: { HELPDESK_TOKEN: token } });

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const manifests = (env: Env) => walk(join(env.outDir, '_manifests'));
const manifestSummary = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { summary: SyncSummary }).summary;

/** Where the token shows up: the process's output and every file written under the destination. */
function tokenIn(env: Env, printed: { stdout: string; stderr: string }): string[] {
  const places = [printed.stdout.includes(TOKEN) ? 'stdout' : '', printed.stderr.includes(TOKEN) ? 'stderr' : ''];
  for (const path of walk(env.outDir)) {
    const bytes = readFileSync(path);
    const text = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    if (text.includes(TOKEN)) places.push(path);
  }
  return places.filter(Boolean);
}

/** Every stream but the failed one committed: each table against what the API holds for the token. */
async function expectEveryOtherStream(env: Env, failed: 'holidays' | 'tags'): Promise<void> {
  const tables = readTables(env.outDir);
  const listed = await allConversations(env.sandbox);
  expect(listed.length).toBeGreaterThan(200);
  expect([...merged(tables.conversations).keys()].sort()).toEqual(listed.map((c) => String(c.id)).sort());
  expect(merged(tables.messages).size).toBeGreaterThan(listed.length);
  expect(merged(tables.contacts).size).toBeGreaterThan(0);
  const inboxes = (await api(env.sandbox, 'GET', '/inboxes')) as unknown as Array<{ id: string }>;
  expect(merged(tables.inboxes).size).toBe(inboxes.length);
  expect(merged(tables.users).size).toBeGreaterThan(0);
  expect(merged(tables.business_hours).size).toBeGreaterThan(0);
  expect(merged(tables.account).size).toBe(1);
  // Three days (the start date, yesterday, today) for every inbox.
  expect(merged(tables.report_productivity_daily, ['inbox_id', 'date']).size).toBe(3 * inboxes.length);
  const other = failed === 'holidays' ? 'tags' : 'holidays';
  expect(merged(tables[other]).size).toBeGreaterThan(0);
  expect(tables[failed]).toBeUndefined();
}

describe('a stream that fails over real sockets', () => {
  it('holidays redirected off-site: every other stream commits, exit 3, the token stays home; healed, the next run completes it', async () => {
    const env = await newEnv('offsite-redirect');
    const config = configFile(env);
    const first = await sync(config);
    expect(first.code, first.stderr).toBe(3);
    await expectEveryOtherStream(env, 'holidays');
    // The manifest is written, and says what failed.
    const [manifest] = manifests(env);
    expect(manifests(env)).toHaveLength(1);
    const summary = manifestSummary(manifest as string);
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams).toEqual([
      {
        stream: 'holidays',
        code: 'API_REDIRECT',
        message: expect.stringContaining(`to another origin (${env.sandbox.offsite?.origin}): refused`),
      },
    ]);
    expect(summary.warnings.map((w) => w.code)).toContain('STREAM_FAILED');
    expect(summary.completeness.map((f) => f.stream)).not.toContain('holidays');
    // What a person reads at the end: the failed stream, its reason, and the partial outcome.
    expect(first.stdout).toMatch(/^sync \S+ partial in /m);
    expect(first.stdout).toContain('  failed holidays (API_REDIRECT): GET ');
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe(
      '  partial: the run committed what it could, but some part failed (above); the next run retries it',
    );
    // Nothing reached the other origin, and the token is nowhere in what the run printed or wrote.
    expect(env.sandbox.offsite?.received()).toEqual([]);
    expect(tokenIn(env, first)).toEqual([]);

    // The deployment stops redirecting (the same data, the same address): the next run reads
    // holidays, commits them, and exits 0.
    const { port } = new URL(env.sandbox.origin);
    await env.sandbox.close();
    env.sandbox = await start(undefined, Number(port));
    const healed = await sync(config);
    expect(healed.code, healed.stderr).toBe(0);
    const latest = manifests(env).sort().at(-1) as string;
    const next = manifestSummary(latest);
    expect(next.status).toBe('succeeded');
    expect(next.failed_streams).toEqual([]);
    expect(next.completeness.find((f) => f.stream === 'holidays')).toMatchObject({ unexplained: 0 });
    const holidays = (await api(env.sandbox, 'GET', '/holidays')) as unknown as Array<{ id: string }>;
    expect(holidays.length).toBeGreaterThan(0);
    expect([...merged(readTables(env.outDir, next.run_id).holidays).keys()].sort()).toEqual(
      holidays.map((h) => h.id).sort(),
    );
    expect(healed.stdout).not.toMatch(/failed|partial/);
  }, 120_000);

  it('a persistent 500 on every inbox’s tags: tags fails after the retries, every other stream commits, exit 3', async () => {
    const env = await newEnv('broken-tags');
    const result = await sync(configFile(env));
    expect(result.code, result.stderr).toBe(3);
    await expectEveryOtherStream(env, 'tags');
    const summary = manifestSummary(manifests(env)[0] as string);
    expect(summary.failed_streams).toEqual([
      { stream: 'tags', code: 'API_SERVER', message: expect.stringMatching(/status 500.*Server Error \(incident/) },
    ]);
    // The queue's retries came first: one inbox's tags asked six times, then the stream failed.
    expect(routeRequests(env.sandbox, 'GET /v1/inboxes/:inbox_id/tags')).toBe(6);
    expect(summary.requests.retries).toBe(5);
    expect(result.stdout).toContain('  failed tags (API_SERVER): GET ');
    expect(tokenIn(env, result)).toEqual([]);
  }, 120_000);

  it('sync --load after a partial run loads what it committed', async () => {
    const env = await newEnv('offsite-redirect');
    const duckdb = join(env.dir, 'warehouse.duckdb');
    const result = await sync(configFile(env), ['--load', '--into', `duckdb:${duckdb}`]);
    expect(result.code, result.stderr).toBe(3);
    const listed = await allConversations(env.sandbox);
    await withDuckdb(duckdb, async (read) => {
      expect(await read('SELECT run_id FROM helpdesk_loaded_manifests')).toHaveLength(1);
      const [{ n }] = (await read('SELECT count(*)::int AS n FROM conversations')) as [{ n: number }];
      expect(n).toBe(listed.length);
      const [{ h }] = (await read('SELECT count(*)::int AS h FROM holidays')) as [{ h: number }];
      expect(h).toBe(0);
    });
  }, 120_000);
});

describe('failures that still end the run at once', () => {
  /** The sandbox behind a proxy that answers GET /v1/holidays its own way. */
  async function behindProxy(env: Env, holidays: FrontAnswer): Promise<string> {
    const proxy = await startFrontProxy(env.sandbox.baseUrl, (req) =>
      req.method === 'GET' && req.url?.split('?')[0] === '/v1/holidays' ? holidays : 'pass',
    );
    closers.push(proxy.close);
    return configFile(env, proxy.baseUrl);
  }

  /** No stream after holidays ran: neither tags, nor the scan, nor reports asked anything; no manifest. */
  function expectStoppedAtHolidays(env: Env): void {
    expect(routeRequests(env.sandbox, 'GET /v1/inboxes/:inbox_id/tags')).toBe(0);
    expect(routeRequests(env.sandbox, 'POST /v1/search')).toBe(0);
    expect(routeRequests(env.sandbox, 'GET /v1/reports/:inbox_id/productivity')).toBe(0);
    expect(manifests(env)).toEqual([]);
    // What completed before the failure is committed (the next run's manifest lists it).
    expect(readTables(env.outDir).inboxes?.length).toBeGreaterThan(0);
  }

  it('a wrong token: exit 1 at the first request, no stream runs', async () => {
    const env = await newEnv();
    const result = await sync(configFile(env), [], 'hs-wrong-token-0000');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/API_UNAUTHORIZED/);
    expect(Object.keys(env.sandbox.stats().by_route)).toEqual(['GET /v1/me']);
    expect(walk(env.outDir)).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('hs-wrong-token-0000');
  });

  it('a token revoked mid-run (401 on GET /holidays): exit 1, no stream runs on', async () => {
    const env = await newEnv();
    const config = await behindProxy(env, { status: 401, body: { message: 'Unauthenticated.' } });
    const result = await sync(config);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/status 401 \(API_UNAUTHORIZED\): Unauthenticated\./);
    expect(result.stdout).not.toMatch(/partial/);
    expectStoppedAtHolidays(env);
    expect(tokenIn(env, result)).toEqual([]);
  }, 120_000);

  it('the host going away mid-run (connection refused from GET /holidays on): exit 1, no stream runs on', async () => {
    const env = await newEnv();
    const config = await behindProxy(env, 'go-away');
    const result = await sync(config);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/ECONNREFUSED \(API_NETWORK\)/);
    expectStoppedAtHolidays(env);
  }, 120_000);

  it('an unreachable host from the start: exit 1, nothing written', async () => {
    const env = await newEnv();
    const proxy = await startFrontProxy(env.sandbox.baseUrl, () => 'pass');
    const url = proxy.baseUrl;
    await proxy.close();
    const result = await sync(configFile(env, url));
    expect(result.code, result.stderr).toBe(1);
    // Off a terminal the logs are JSON, every line: the error that ended the run is the last, with its code.
    const last = JSON.parse(result.stderr.trimEnd().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({ event: 'command.failed', code: 'API_NETWORK', exit_code: 1 });
    expect(last.message).toMatch(/^GET \S+ failed: ECONNREFUSED$/);
    expect(env.sandbox.stats().total).toBe(0);
    expect(walk(env.outDir)).toEqual([]);
  }, 120_000);
});
