import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { withDuckdb } from '../load/support.js';
import { runDaemon, type Scrape, value } from './daemon-scrape.js';

/**
 * The daemon over a config of two accounts, over real sockets: one sandbox reached as
 * `http://127.0.0.1:<port>/v1` (acme) and `http://localhost:<port>/v1` (globex), two
 * origins, so two request queues.
 */
let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 23, conversations: 30, rateLimit: 1_000_000, rateWindowSeconds: 60 });
  dir = mkdtempSync(join(tmpdir(), 'hs-daemon-accounts-'));
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const port = () => new URL(sandbox.baseUrl).port;
const origins = () => ({ acme: `http://127.0.0.1:${port()}`, globex: `http://localhost:${port()}` });

function configFile(name: string, globexToken: string, metrics: Record<string, unknown> = {}): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      source: { rate_limit: { requests_per_minute: 100_000, concurrency: 8 } },
      accounts: [
        { name: 'acme', base_url: `${origins().acme}/v1`, token: 'sandbox-admin' },
        {
          name: 'globex',
          base_url: `${origins().globex}/v1`,
          token: globexToken,
          streams: ['inboxes', 'users', 'tags'],
        },
      ],
      reports: { lookback_days: 0 },
      destination: { type: 'local', path: join(dir, name, 'out') },
      state: { path: join(dir, name, 'state', 'state.sqlite') },
      schedule: { sync: '* * * * * *' },
      metrics: { listen: '127.0.0.1:0', ...metrics },
    }),
  );
  return path;
}

interface Summary {
  status: string;
  tables: Record<string, { rows: number }>;
  completeness: Array<{ stream: string; expected: number; live: number }>;
}

/** Each account's sync.summary events, in the order logged. */
function summariesOf(stderr: string, account: string): Summary[] {
  return stderr
    .split('\n')
    .filter((l) => l.includes('"event":"sync.summary"') && l.includes(`"account":"${account}"`))
    .map((l) => (JSON.parse(l) as { summary: Summary }).summary);
}

const runs = (s: Scrape, account: string, outcome: string) =>
  value(s.samples, 'helpdesk_sync_runs_total', { job: 'sync', account, outcome });
/** The accounts table row of the status page, as text. */
const row = (page: string | undefined, account: string) =>
  (new RegExp(`<tr data-account="${account}">(.*?)</tr>`, 's').exec(page ?? '')?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('the daemon with several accounts', () => {
  it("syncs every account each tick; /metrics keeps each account's series apart and counts requests per origin; / shows both", async () => {
    const path = configFile('both', 'sandbox-admin');
    const { result, scrapes } = await runDaemon(
      path,
      (s) =>
        runs(s, 'acme', 'succeeded') >= 1 &&
        runs(s, 'globex', 'succeeded') >= 1 &&
        /<tr data-run=/.test(s.page?.split('id="account-globex"')[1] ?? '') &&
        /<tr data-run=/.test(s.page?.split('id="account-acme"')[1]?.split('id="account-globex"')[0] ?? ''),
      true,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(scrapes.every((s) => s.health === 200)).toBe(true);
    const last = scrapes.at(-1) as Scrape;
    for (const account of ['acme', 'globex']) {
      const counted = runs(last, account, 'succeeded');
      const done = summariesOf(result.stderr, account).slice(0, counted);
      expect(done.length, account).toBe(counted);
      // Each account's rows, completeness and success are its own.
      for (const table of Object.keys(done[0]?.tables ?? {})) {
        const rows = done.reduce((n, s) => n + (s.tables[table]?.rows ?? 0), 0);
        expect(value(last.samples, 'helpdesk_sync_rows_written_total', { account, table }), `${account} ${table}`).toBe(
          rows,
        );
      }
      for (const f of (done.at(-1) as Summary).completeness) {
        const labels = { account, stream: f.stream };
        expect(value(last.samples, 'helpdesk_sync_completeness_live', labels), `${account} ${f.stream}`).toBe(f.live);
      }
      expect(
        value(last.samples, 'helpdesk_sync_last_success_timestamp_seconds', { job: 'sync', account }),
      ).toBeGreaterThan(0);
      expect(value(last.samples, 'helpdesk_sync_account_failed', { job: 'sync', account })).toBe(0);
      expect(value(last.samples, 'helpdesk_sync_run_duration_seconds_count', { job: 'sync', account })).toBe(counted);
    }
    // globex syncs three streams: its series name only those.
    const globexStreams = last.samples
      .filter((s) => s.name === 'helpdesk_sync_completeness_expected' && s.labels.account === 'globex')
      .map((s) => s.labels.stream)
      .sort();
    expect(globexStreams).toEqual(['inboxes', 'tags', 'users']);
    // No series of a run lacks its account: every run was an account's.
    for (const s of last.samples.filter((x) =>
      /^helpdesk_sync_(runs_total|completeness_|stream_failed)/.test(x.name),
    )) {
      expect(['acme', 'globex'], `${s.name} ${JSON.stringify(s.labels)}`).toContain(s.labels.account);
    }
    // Requests per queue: one origin each, every request answered 200.
    for (const origin of Object.values(origins())) {
      expect(value(last.samples, 'helpdesk_sync_requests_total', { origin, status: '200' }), origin).toBeGreaterThan(0);
    }
    expect(last.samples.filter((s) => s.name === 'helpdesk_sync_requests_total' && !s.labels.origin)).toEqual([]);
    expect(row(last.page, 'acme')).toMatch(/^acme succeeded /);
    expect(row(last.page, 'globex')).toMatch(/^globex succeeded /);
    // Each account's own output under its name.
    for (const account of ['acme', 'globex']) {
      expect(readdirSync(join(dir, 'both', 'out', account, '_manifests')).length, account).toBeGreaterThan(0);
    }
  });

  it("one account's wrong token fails that account only: the other commits, the tick is partial, /healthz stays healthy", async () => {
    // One failed tick would make /healthz fail: a tick where one account committed is partial, not failed.
    const path = configFile('one-wrong', 'not-a-sandbox-token', { unhealthy_after_failures: 1 });
    const { result, scrapes } = await runDaemon(
      path,
      (s) =>
        runs(s, 'acme', 'succeeded') >= 2 &&
        runs(s, 'globex', 'failed') >= 2 &&
        /API_UNAUTHORIZED/.test(row(s.page, 'globex')) &&
        /<tr data-run=/.test(s.page ?? ''),
      true,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(scrapes.every((s) => s.health === 200 && s.healthAfter === 200)).toBe(true);
    const last = scrapes.at(-1) as Scrape;
    expect(runs(last, 'globex', 'succeeded')).toBe(0);
    expect(runs(last, 'acme', 'failed')).toBe(0);
    expect(value(last.samples, 'helpdesk_sync_consecutive_failed_runs')).toBe(0);
    expect(value(last.samples, 'helpdesk_sync_account_failed', { job: 'sync', account: 'globex' })).toBe(1);
    expect(value(last.samples, 'helpdesk_sync_account_failed', { job: 'sync', account: 'acme' })).toBe(0);
    expect(
      last.samples.some(
        (s) => s.name === 'helpdesk_sync_last_success_timestamp_seconds' && s.labels.account === 'globex',
      ),
    ).toBe(false);
    expect(
      value(last.samples, 'helpdesk_sync_requests_total', { origin: origins().globex, status: '401' }),
    ).toBeGreaterThan(0);
    expect(value(last.samples, 'helpdesk_sync_requests_total', { origin: origins().acme, status: '401' })).toBe(0);
    // The tick is partial, said in the log with every account's outcome.
    expect(result.stderr).toMatch(/"event":"daemon\.job_finished","job":"sync","outcome":"partial"/);
    expect(result.stderr).not.toMatch(/"event":"daemon\.job_finished","job":"sync","outcome":"(failed|succeeded)"/);
    expect(result.stderr).toContain('accounts: acme succeeded, globex failed (API_UNAUTHORIZED)');
    // The page: acme's last run succeeded, globex failed with its reason, which the state keeps no run of.
    expect(row(last.page, 'acme')).toMatch(/^acme succeeded /);
    expect(row(last.page, 'globex')).toMatch(/^globex failed API_UNAUTHORIZED /);
    expect(readdirSync(join(dir, 'one-wrong', 'out', 'acme', '_manifests')).length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(join(dir, 'one-wrong', 'out'))).toEqual(['acme']);
    expect(result.stderr).not.toContain('not-a-sandbox-token');
    expect(last.page).not.toContain('not-a-sandbox-token');
  });

  it('with load:, loads every account after a tick into the one warehouse beside the config state', async () => {
    const path = configFile('load', 'sandbox-admin');
    const withLoad = join(dir, 'load-with-load.json');
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(withLoad, JSON.stringify({ ...raw, load: {} }));
    const target = `duckdb:${join(dir, 'load', 'state', 'state.duckdb')}`;
    // Each account's last load, read from its own state after the tick: a success, into the one target.
    const loaded = (s: Scrape, account: string) =>
      s.samples.some(
        (x) =>
          x.name === 'helpdesk_sync_load_last_success_timestamp_seconds' &&
          x.labels.account === account &&
          x.labels.target === target,
      );
    const { result, scrapes } = await runDaemon(
      withLoad,
      (s) =>
        runs(s, 'acme', 'succeeded') >= 1 &&
        runs(s, 'globex', 'succeeded') >= 1 &&
        loaded(s, 'acme') &&
        loaded(s, 'globex'),
    );
    expect(result.code, result.stderr).toBe(0);
    const last = scrapes.at(-1) as Scrape;
    for (const account of ['acme', 'globex']) {
      expect(value(last.samples, 'helpdesk_sync_load_failed', { account, target }), account).toBe(0);
      expect(
        last.samples.some((x) => x.name === 'helpdesk_sync_load_lag_manifests' && x.labels.account === account),
        account,
      ).toBe(true);
    }
    // The default target is the config's own, beside its state.path, not beside an account's state.
    const accounts = await withDuckdb(join(dir, 'load', 'state', 'state.duckdb'), (read) =>
      read('SELECT _account, count(*)::INTEGER AS n FROM tags GROUP BY _account ORDER BY _account'),
    );
    expect(accounts.map((r) => r._account)).toEqual(['acme', 'globex']);
    expect(accounts.every((r) => (r.n as number) > 0)).toBe(true);
  });

  it('applies the push files to the accounts push.accounts names, each on its own: a failed one leaves the others applied', async () => {
    const path = join(dir, 'push.json');
    writeFileSync(
      path,
      JSON.stringify({
        source: { rate_limit: { requests_per_minute: 100_000 } },
        accounts: [
          { name: 'acme', base_url: `${origins().acme}/v1`, token: 'sandbox-admin' },
          { name: 'globex', base_url: `${origins().globex}/v1`, token: 'not-a-sandbox-token' },
          // Not named by push.accounts: never pushed to.
          { name: 'initech', base_url: `${origins().acme}/v1`, token: 'sandbox-agent' },
        ],
        destination: { type: 'local', path: join(dir, 'push', 'out') },
        state: { path: join(dir, 'push', 'state', 'state.sqlite') },
        push: { holidays: join(process.cwd(), 'config', 'holidays.yaml'), accounts: ['acme', 'globex'] },
        schedule: { push: '* * * * * *' },
        metrics: { listen: '127.0.0.1:0', unhealthy_after_failures: 1 },
      }),
    );
    const pushes = (s: Scrape, account: string, outcome: string) =>
      value(s.samples, 'helpdesk_sync_runs_total', { job: 'push', account, outcome });
    const { result, scrapes } = await runDaemon(
      path,
      (s) => pushes(s, 'acme', 'succeeded') >= 2 && pushes(s, 'globex', 'failed') >= 2,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(scrapes.every((s) => s.health === 200)).toBe(true);
    const last = scrapes.at(-1) as Scrape;
    expect(pushes(last, 'globex', 'succeeded')).toBe(0);
    expect(pushes(last, 'acme', 'failed')).toBe(0);
    expect(last.samples.filter((s) => s.labels.account === 'initech')).toEqual([]);
    expect(value(last.samples, 'helpdesk_sync_account_failed', { job: 'push', account: 'globex' })).toBe(1);
    // Applied once for acme; later ticks found nothing to change.
    const holidays = (await (
      await fetch(`${sandbox.baseUrl}/holidays`, { headers: { authorization: 'Bearer sandbox-admin' } })
    ).json()) as Array<{ name: string }>;
    expect(holidays.filter((h) => h.name === 'New Year')).toHaveLength(1);
    expect(result.stderr).toMatch(/"event":"daemon\.job_finished","job":"push","outcome":"partial"/);
    expect(result.stderr).not.toContain('not-a-sandbox-token');
  });
});
