import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { treeListing } from '../../support/tree-listing.js';
import { withPostgres } from '../load/support.js';
import { runCli } from '../sync/cli-run.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI_TIMEOUT_MS = 120_000;
/** A JS class name (`QueryError`, `UsageError`): never part of what a command says. */
const CLASS_NAME = /\b[A-Z][A-Za-z]*Error\b/;
const BY_STATUS = 'SELECT status, count(*) AS n FROM conversations GROUP BY status ORDER BY status';

const postgres = sharedPostgres();
let sandbox: RunningSandbox;
let cwd: string;
let elsewhere: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 4, conversations: 25, rateLimit: 100_000 });
  cwd = mkdtempSync(join(tmpdir(), 'hs-query-'));
  elsewhere = mkdtempSync(join(tmpdir(), 'hs-query-elsewhere-'));
  cpSync(join(ROOT, 'config'), join(cwd, 'config'), { recursive: true });
});

afterAll(async () => {
  await sandbox?.close();
  for (const dir of [cwd, elsewhere]) rmSync(dir, { recursive: true, force: true });
});

/** README's sandbox route: config/sandbox.yaml, output in ./out, state and DuckDB file in ./.helpdesk-sync. */
const cli = (args: string[], dir = cwd, env: NodeJS.ProcessEnv = {}) =>
  runCli(args, {
    cwd: dir,
    env: {
      HELPDESK_SYNC_CONFIG: dir === cwd ? 'config/sandbox.yaml' : undefined,
      HELPDESK_BASE_URL: sandbox.baseUrl,
      HELPDESK_TOKEN: undefined,
      // The words a person reads at a terminal: off one, the logs (and an ending error) are JSON lines.
      HELPDESK_SYNC_LOG_FORMAT: 'human',
      ...env,
    },
  });

/** A date and a time with microseconds, asked on a machine west of Greenwich: both engines say them exactly, in UTC. */
const TIMES = "SELECT DATE '2026-01-02' AS d, TIMESTAMPTZ '2026-01-02 03:04:05.123456+00' AS t";
const TIMES_TABLE =
  'd           t\n----------  -----------------------------\n2026-01-02  2026-01-02 03:04:05.123456+00\n(1 row)\n';
const WEST = { TZ: 'America/New_York' };

/** Conversations by status, counted from the synced files themselves (one sync: each conversation once). */
function statusCounts(): Array<{ status: string; n: number }> {
  const counts = new Map<string, number>();
  const tableDir = join(cwd, 'out', 'conversations');
  for (const dt of readdirSync(tableDir)) {
    for (const file of readdirSync(join(tableDir, dt))) {
      const text = gunzipSync(readFileSync(join(tableDir, dt, file))).toString('utf8');
      for (const line of text.split('\n').filter(Boolean)) {
        const { status } = JSON.parse(line) as { status: string };
        counts.set(status, (counts.get(status) ?? 0) + 1);
      }
    }
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([status, n]) => ({ status, n }));
}

/** `BY_STATUS` as the table format prints it: names left, numbers right, two spaces apart, then the count. */
function byStatusTable(rows: Array<{ status: string; n: number }>): string {
  const w1 = Math.max('status'.length, ...rows.map((r) => r.status.length));
  const w2 = Math.max(1, ...rows.map((r) => String(r.n).length));
  return [
    `${'status'.padEnd(w1)}  ${'n'.padStart(w2)}`,
    `${'-'.repeat(w1)}  ${'-'.repeat(w2)}`,
    ...rows.map((r) => `${r.status.padEnd(w1)}  ${String(r.n).padStart(w2)}`),
    `(${rows.length} rows)`,
    '',
  ].join('\n');
}

describe('query: SQL on the load target with nothing but npm ci', () => {
  it(
    'before any load: says nothing was loaded there and which load makes it, and creates nothing',
    async () => {
      const before = treeListing(cwd);
      const run = await cli(['query', BY_STATUS]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'error [QUERY_NO_WAREHOUSE]: no warehouse at duckdb:.helpdesk-sync/state.duckdb (default: beside the state): ' +
          'nothing was loaded there yet; load the synced output into it first (helpdesk-sync load)\n',
      );
      expect(treeListing(cwd)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'sync --load says where the output and the warehouse are; query answers from the DuckDB file and changes nothing',
    async () => {
      const sync = await cli(['sync', '--load']);
      expect(sync.code, sync.stderr).toBe(0);
      expect(sync.stdout).toContain(`\n  output in local directory ${join(cwd, 'out')}\n`);
      expect(sync.stdout).toMatch(
        /\nload into duckdb:\.helpdesk-sync\/state\.duckdb \(default: beside the state\) succeeded in /,
      );
      expect(sync.stdout).toContain(
        '\n  query it: helpdesk-sync query "SELECT status, count(*) FROM conversations GROUP BY status"\n',
      );

      const expected = statusCounts();
      expect(expected.length).toBeGreaterThan(1);
      const before = treeListing(cwd);
      const table = await cli(['query', BY_STATUS]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toBe(byStatusTable(expected));
      const json = await cli(['query', '--format', 'json', BY_STATUS]);
      expect(JSON.parse(json.stdout)).toEqual(expected);
      const csv = await cli(['query', '--format', 'csv', BY_STATUS]);
      expect(csv.stdout).toBe(['status,n', ...expected.map((r) => `${r.status},${r.n}`), ''].join('\r\n'));

      const write = await cli(['query', 'DELETE FROM conversations']);
      expect(write.code).toBe(1);
      expect(write.stderr).toMatch(/^error \[QUERY_FAILED\]: DuckDB refused the query: .*read-only/);
      expect(write.stderr).not.toMatch(CLASS_NAME);
      const bad = await cli(['query', 'SELEC 1']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error \[QUERY_FAILED\]: DuckDB refused the query: Parser Error: syntax error/);
      expect(treeListing(cwd)).toEqual(before);
      expect((await cli(['query', '--format', 'json', BY_STATUS])).stdout).toBe(json.stdout);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    '--into a bare .duckdb path from another directory: no config needed; a load writing the file is exit 75',
    async () => {
      const path = join(cwd, '.helpdesk-sync', 'state.duckdb');
      const run = await cli(['query', '--into', path, 'SELECT count(*) AS n FROM conversations'], elsewhere);
      expect(run.code, run.stderr).toBe(0);
      const n = statusCounts().reduce((sum, r) => sum + r.n, 0);
      expect(run.stdout).toBe(`${'n'.padStart(String(n).length)}\n${'-'.repeat(String(n).length)}\n${n}\n(1 row)\n`);
      const times = await cli(['query', '--into', path, TIMES], elsewhere, WEST);
      expect(times.stdout, times.stderr).toBe(TIMES_TABLE);
      expect(readdirSync(elsewhere)).toEqual([]);

      // A writer holds the file, as a load does while it runs.
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const writer = await DuckDBInstance.create(path);
      try {
        const locked = await cli(['query', '--into', path, 'SELECT 1'], elsewhere);
        expect(locked.code).toBe(75);
        expect(locked.stderr).toContain(`another process is writing the DuckDB file ${path} (a load?); query it when`);
      } finally {
        writer.closeSync();
      }
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'PostgreSQL: the same answer, one statement in a read-only transaction, the password never said',
    async (ctx) => {
      const server = postgres.use(ctx);
      await withPostgres(server.url, async (read) => void (await read('CREATE DATABASE query_target')));
      // The test server trusts local connections, so any password gets in: enough to see it is never echoed.
      const url = server.url.replace('postgres@', 'postgres:s3cret-pw@').replace(/\/postgres$/, '/query_target');
      const load = await cli(['load', '--into', url]);
      expect(load.code, load.stderr).toBe(0);
      expect(load.stdout).toContain('query it: helpdesk-sync query --into <the same connection string> "SELECT');

      const table = await cli(['query', '--into', url, BY_STATUS], elsewhere);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toBe(byStatusTable(statusCounts()));
      const times = await cli(['query', '--into', url, TIMES], elsewhere, WEST);
      expect(times.stdout, times.stderr).toBe(TIMES_TABLE);
      const write = await cli(['query', '--into', url, 'DELETE FROM conversations'], elsewhere);
      expect(write.code).toBe(1);
      expect(write.stderr).toBe(
        'error [QUERY_FAILED]: PostgreSQL refused the query: cannot execute DELETE in a read-only transaction\n',
      );
      const escaped = await cli(['query', '--into', url, 'COMMIT; DELETE FROM conversations'], elsewhere);
      expect(escaped.code).toBe(1);
      expect(escaped.stderr).toBe(
        'error [QUERY_FAILED]: PostgreSQL refused the query: it takes one statement at a time (this one holds several)\n',
      );
      const count = await cli(['query', '--into', url, '--format', 'csv', 'SELECT count(*) AS n FROM conversations']);
      expect(count.stdout).toBe(`n\r\n${statusCounts().reduce((sum, r) => sum + r.n, 0)}\r\n`);
      for (const run of [load, table, write, escaped, count])
        expect(run.stdout + run.stderr).not.toContain('s3cret-pw');
    },
    CLI_TIMEOUT_MS,
  );
});
