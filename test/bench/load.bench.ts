/**
 * Load benchmark (docs/performance.md, "Loading into a warehouse"): `load` of at
 * least a million rows over every table, written by real output sessions in
 * several manifests, into DuckDB and into a real PostgreSQL server (started here
 * by test/support/postgres-server.ts, the tests' server), each beside the
 * engine's own bulk path on the same files:
 * - DuckDB: `read_json` of each table's files into a table with the DDL's types
 *   under `load`'s one thread and memory limit (the yardstick: same limits, same
 *   files), and the same uncapped, printed beside it;
 * - PostgreSQL: `COPY … FROM STDIN` of the same lines, one stream per table (gunzip's output
 *   piped through pg-copy-streams, as psql's `\copy` would send it).
 * The PostgreSQL server is new, so its WAL is warmed first (warmWal): both paths meet
 * the segments a server in use has.
 * Rows/s and peak RSS of each, measured in its own child process. Then ten
 * incremental loads, each of a manifest changing 1 % of the conversations, and
 * the warehouse's size after them beside its size after the full load.
 * Targets: DuckDB's `load` ≥ 0.6 × the capped bulk path's rows/s, PostgreSQL's ≥
 * 0.75 × COPY's; `load`'s peak RSS ≤ 256 MB; the size after the ten
 * incremental loads ≤ 1.15 × the size after the full load.
 *
 * `--transaction-rows` is `load`'s transaction budget (1: one manifest per
 * transaction, as before manifests shared one); `--engines=duckdb` measures one engine.
 *
 *   npm run bench -- load [--rows=1000000] [--manifests=10] [--transaction-rows=N] [--engines=duckdb,postgres]
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { TABLE_NAMES, type TableName } from '../../src/output/tables.js';
import { openStateDb } from '../../src/state/database.js';
import { DUCKDB_LOAD_SETTINGS } from '../../src/warehouse/duckdb/duckdb-connection.js';
import { DUCKDB } from '../../src/warehouse/duckdb/duckdb-dialect.js';
import { typedColumns } from '../../src/warehouse/table-columns.js';
import { sampleRecord } from '../integration/output/support/sample-records.js';
import { startPostgresServer } from '../support/postgres-server.js';
import { numberOption, option } from './support/bench-option.js';
import { openBenchSession } from './support/bench-session.js';
import { peakRssMb } from './support/peak-rss.mjs';

const SELF = fileURLToPath(import.meta.url);
const LOAD_CHILD = fileURLToPath(new URL('./support/load-child.mjs', import.meta.url));
/** `load` against the yardstick: DuckDB's capped bulk path, PostgreSQL's COPY. */
const TARGET_RATIO = { duckdb: 0.6, postgres: 0.75 } as const;
const TARGET_RSS_MB = 256;
/** The warehouse after ten incremental loads against after the full load: no unbounded growth. */
const TARGET_GROWTH = 1.15;
const INCREMENTS = 10;
/** Share of the conversations each incremental load changes. */
const CHANGED_SHARE = 0.01;

/** Share of the rows per table: threads dominate, as in a helpdesk. */
const SHARES: Record<TableName, number> = {
  conversations: 0.15,
  messages: 0.35,
  thread_events: 0.25,
  attachments: 0.08,
  contacts: 0.1,
  tags: 0.01,
  inboxes: 0.01,
  users: 0.01,
  business_hours: 0.01,
  holidays: 0.01,
  report_productivity_daily: 0.02,
  // One row per organization: nothing to measure.
  account: 0,
};

interface Measure {
  rows: number;
  seconds: number;
  maxRssMb: number;
  /** PostgreSQL's statements by kind, timed on the loader's side (BENCH_STATEMENT_TIMINGS=1). */
  statements?: Record<string, { n: number; s: number }>;
}

/**
 * Writes the output: `manifests` runs through real output sessions, `rows` rows
 * over all tables. Returns the numbers of the conversations written (sampleRecord's `n`).
 */
export async function writeOutput(dir: string, rows: number, manifests: number): Promise<number[]> {
  const db = openStateDb(join(dir, 'state.sqlite'));
  const conversations: number[] = [];
  let n = 0;
  try {
    for (let m = 0; m < manifests; m++) {
      const startedAt = new Date(Date.UTC(2026, 0, 1, 0, m));
      const session = await openBenchSession(db, dir, startedAt);
      for (const table of TABLE_NAMES) {
        const count = Math.ceil((rows * SHARES[table]) / manifests);
        for (let i = 0; i < count; i++) {
          await session.writeRow(table, sampleRecord(table, ++n));
          if (table === 'conversations') conversations.push(n);
        }
      }
      await session.finish();
    }
  } finally {
    db.close();
  }
  return conversations;
}

/** One incremental run's output (the `step`-th): a manifest changing `CHANGED_SHARE` of the conversations. */
async function writeChanges(dir: string, conversations: readonly number[], step: number): Promise<void> {
  const db = openStateDb(join(dir, 'state.sqlite'));
  const count = Math.ceil(conversations.length * CHANGED_SHARE);
  try {
    const session = await openBenchSession(db, dir, new Date(Date.UTC(2026, 0, 2, 0, step)));
    for (const n of conversations.slice(step * count, (step + 1) * count)) {
      await session.writeRow('conversations', { ...sampleRecord('conversations', n), subject: `changed in ${step}` });
    }
    await session.finish();
  } finally {
    db.close();
  }
}

/** Bytes the warehouse takes: DuckDB's file (and its WAL), PostgreSQL's database. */
async function warehouseBytes(into: string): Promise<number> {
  if (into.startsWith('duckdb:')) {
    const path = into.slice('duckdb:'.length);
    return [path, `${path}.wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0);
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: into });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

interface Growth {
  full_mb: number;
  after_mb: number;
  ratio: number;
  increment_seconds: number[];
}

/**
 * Each target's size after the full load, then after `INCREMENTS` loads that
 * each change 1 % of the conversations (each run's output loaded into every
 * target before the next is written): what a target grows by per run.
 */
async function growth(
  dir: string,
  targets: Record<string, string>,
  conversations: readonly number[],
  budget: string,
): Promise<Record<string, Growth>> {
  const mb = (n: number) => Number((n / 1024 / 1024).toFixed(1));
  const full: Record<string, number> = {};
  const seconds: Record<string, number[]> = {};
  for (const [engine, into] of Object.entries(targets)) {
    full[engine] = await warehouseBytes(into);
    seconds[engine] = [];
  }
  for (let step = 0; step < INCREMENTS; step++) {
    await writeChanges(dir, conversations, step);
    for (const [engine, into] of Object.entries(targets)) {
      seconds[engine]!.push(Number(runChild('load', dir, [into, budget], true).seconds.toFixed(2)));
    }
  }
  const out: Record<string, Growth> = {};
  for (const [engine, into] of Object.entries(targets)) {
    const after = await warehouseBytes(into);
    out[engine] = {
      full_mb: mb(full[engine]!),
      after_mb: mb(after),
      ratio: Number((after / full[engine]!).toFixed(3)),
      increment_seconds: seconds[engine]!,
    };
  }
  return out;
}

/** A table's files; none for a table the output has no rows of (the account table here). */
function filesOf(dir: string, table: TableName): string[] {
  const root = join(dir, 'out', table);
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((day) => readdirSync(join(root, day)).map((f) => join(root, day, f)));
}

/**
 * Child: DuckDB's own bulk path, read_json of each table's files into a table with the DDL's types.
 * `capped`: the same under `load`'s settings (one thread, its memory limit): what one pass of
 * reading and writing costs where `load` runs, beside the engine's default of every core.
 */
async function childDuckdbBulk(dir: string, capped: boolean): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const file = join(dir, capped ? 'bulk-capped.duckdb' : 'bulk.duckdb');
  const instance = await DuckDBInstance.create(file, capped ? DUCKDB_LOAD_SETTINGS : {});
  const db = await instance.connect();
  let rows = 0;
  for (const table of TABLE_NAMES) {
    if (filesOf(dir, table).length === 0) continue;
    const columns = typedColumns(DUCKDB.types, table)
      .map((c) => `${c.name}: '${c.type}'`)
      .join(', ');
    const files = filesOf(dir, table)
      .map((f) => `'${f}'`)
      .join(', ');
    await db.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_json([${files}], format = 'newline_delimited', hive_partitioning = false, columns = {${columns}})`,
    );
    rows += Number((await db.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]![0]);
  }
  db.closeSync();
  instance.closeSync();
  return rows;
}

/** Runs SQL statements in order on one connection; a failure stops the benchmark, naming `what`. */
async function sqlRun(url: string, statements: readonly string[], what: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.end();
  }
}

/** Child: PostgreSQL's own bulk path, the lines of each table's files through COPY FROM STDIN. */
async function childPostgresBulk(dir: string, url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const { from: copyFrom } = await import('pg-copy-streams');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let rows = 0;
  try {
    for (const table of TABLE_NAMES) {
      if (filesOf(dir, table).length === 0) continue;
      await client.query(`CREATE TABLE bulk_${table} (line text)`);
      const copy = client.query(
        copyFrom(`COPY bulk_${table} (line) FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')`),
      );
      const gunzip = spawn('gunzip', ['-c', ...filesOf(dir, table)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => gunzip.on('close', resolve));
      await pipeline(gunzip.stdout, copy);
      if ((await exited) !== 0) throw new Error(`gunzip of ${table}'s files failed`);
      const counted = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM bulk_${table}`);
      rows += counted.rows[0]!.n;
    }
  } finally {
    await client.end();
  }
  return rows;
}

/**
 * A server just made by initdb has one WAL segment: whatever runs first on it
 * creates the gigabyte of segments a million-row load writes (new files, their
 * blocks allocated by the filesystem), while whatever runs next reuses them,
 * recycled at the checkpoint. Here `load` ran first and took 9.3–9.9 s where the
 * same load took 7.3–7.7 s on a new server whose segments had been made, the
 * bulk path after it meeting them made. A server in use has its segments, so both
 * paths meet them: about a gigabyte of WAL written and dropped, then a checkpoint.
 */
function warmWal(url: string): Promise<void> {
  return sqlRun(
    url,
    [
      "CREATE TABLE bench_wal AS SELECT repeat('x', 1000) AS t FROM generate_series(1, 1000000)",
      'DROP TABLE bench_wal',
      'CHECKPOINT',
    ],
    "warming the server's WAL",
  );
}

/** `load` runs on the built code (support/load-child.mjs), the bulk paths in this file as a child. */
function runChild(mode: string, dir: string, extra: string[] = [], quiet = false): Measure {
  if (!quiet)
    process.stdout.write(`  measuring ${mode}${mode === 'load' ? ` into ${extra[0]?.split(':')[0]}` : ''}…\n`);
  const args =
    mode === 'load' ? [LOAD_CHILD, dir, ...extra] : ['--import', 'tsx', SELF, '--child', mode, dir, ...extra];
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`${mode} failed: ${child.stderr || child.error}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Measure;
}

const rate = (m: Measure) => m.rows / m.seconds;

export default async function bench(args: string[]): Promise<Record<string, unknown>> {
  const rows = numberOption(args, 'rows', 1_000_000);
  const manifests = numberOption(args, 'manifests', 10);
  const budget = option(args, 'transaction-rows', '');
  const engines = option(args, 'engines', 'duckdb,postgres').split(',') as Array<'duckdb' | 'postgres'>;
  if (!existsSync(fileURLToPath(new URL('../../dist/load/load-job.js', import.meta.url)))) {
    throw new Error('the load benchmark measures the built code: run npm run build first');
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const server = await startPostgresServer();
  try {
    const written = performance.now();
    const conversations = await writeOutput(dir, rows, manifests);
    process.stdout.write(
      `output: ${rows} rows over ${TABLE_NAMES.length} tables in ${manifests} manifests, written in ${((performance.now() - written) / 1000).toFixed(1)} s\n`,
    );
    const measured: Record<string, Measure> = {};
    const load_average = loadavg().map((l) => Number(l.toFixed(2)));
    // The full loads and their yardsticks first, on the manifests of the full output; the
    // incremental runs' output is written after them.
    const duckInto = `duckdb:${join(dir, 'load.duckdb')}`;
    if (engines.includes('duckdb')) {
      measured.duckdb_load = runChild('load', dir, [duckInto, budget]);
      measured.duckdb_bulk_capped = runChild('duckdb-bulk-capped', dir);
      measured.duckdb_bulk = runChild('duckdb-bulk', dir);
    }
    if (engines.includes('postgres')) {
      await warmWal(server.url);
      measured.postgres_load = runChild('load', dir, [server.url, budget]);
      // The load leaves a million rows for autovacuum and its pages dirty in the server's
      // buffers, which autovacuum and the checkpointer would work on beside the bulk path's COPY,
      // on the same two cores: done here first, so the bulk path meets an idle server.
      await sqlRun(server.url, ['VACUUM (ANALYZE)', 'CHECKPOINT'], 'VACUUM and CHECKPOINT after the load');
      measured.postgres_bulk = runChild('postgres-bulk', dir, [server.url]);
      // The bulk path's tables out of the database whose size is measured next.
      await sqlRun(
        server.url,
        TABLE_NAMES.map((t) => `DROP TABLE IF EXISTS bulk_${t}`),
        "dropping the bulk path's tables",
      );
    }
    process.stdout.write(`  ${INCREMENTS} incremental loads, each changing 1 % of the conversations…\n`);
    const grown = await growth(
      dir,
      Object.fromEntries(engines.map((e) => [e, e === 'duckdb' ? duckInto : server.url])),
      conversations,
      budget,
    );
    const results = {
      load_average,
      transaction_rows: budget || 'default',
      ...measured,
      growth: grown,
      load_average_after: loadavg().map((l) => Number(l.toFixed(2))),
    };
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    const misses: string[] = [];
    const lines = [
      `load average ${results.load_average.join(' ')} (1, 5, 15 min) on ${process.env.HOSTNAME ?? 'this machine'}`,
    ];
    for (const engine of engines) {
      const load = measured[`${engine}_load`]!;
      // DuckDB's yardstick is its bulk path under load's own limits; the uncapped one is printed beside it.
      const yardstick = measured[engine === 'duckdb' ? 'duckdb_bulk_capped' : 'postgres_bulk']!;
      const ratio = rate(load) / rate(yardstick);
      const grew = grown[engine]!;
      const line = (name: string, m: Measure) =>
        `  ${name} ${m.rows} rows in ${m.seconds.toFixed(1)} s = ${Math.round(rate(m))} rows/s, peak RSS ${m.maxRssMb.toFixed(0)} MB`;
      lines.push(
        `${engine}: load ${load.rows} rows in ${load.seconds.toFixed(1)} s = ${Math.round(rate(load))} rows/s, peak RSS ${load.maxRssMb.toFixed(0)} MB`,
        ...(engine === 'duckdb'
          ? [
              line(`bulk path under load's settings (1 thread, ${DUCKDB_LOAD_SETTINGS.memory_limit})`, yardstick),
              `${line('bulk path uncapped', measured.duckdb_bulk!)}; load / that ${(rate(load) / rate(measured.duckdb_bulk!)).toFixed(2)}`,
            ]
          : [line('COPY … FROM STDIN', yardstick)]),
        `  load / ${engine === 'duckdb' ? 'capped bulk path' : 'COPY'} ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO[engine]}) ${verdict(ratio >= TARGET_RATIO[engine])}; ` +
          `peak RSS target ≤ ${TARGET_RSS_MB} MB ${verdict(load.maxRssMb <= TARGET_RSS_MB)}`,
        ...Object.entries(load.statements ?? {})
          .slice(0, 8)
          .map(([kind, t]) => `    ${t.s.toFixed(2)} s in ${t.n} × ${kind}`),
        `  size ${grew.full_mb} MB after the full load, ${grew.after_mb} MB after ${INCREMENTS} incremental loads (${grew.increment_seconds.join(', ')} s): ` +
          `${grew.ratio} × (target ≤ ${TARGET_GROWTH}) ${verdict(grew.ratio <= TARGET_GROWTH)}`,
      );
      if (ratio < TARGET_RATIO[engine]) misses.push(`${engine} load at ${ratio.toFixed(2)} × its yardstick`);
      if (load.maxRssMb > TARGET_RSS_MB) misses.push(`${engine} load peak RSS ${load.maxRssMb.toFixed(0)} MB`);
      if (grew.ratio > TARGET_GROWTH) misses.push(`${engine} warehouse grew ${grew.ratio} ×`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    if (misses.length > 0) throw Object.assign(new Error(misses.join('; ')), { results });
    return results;
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--child') {
  const [mode, dir, target] = process.argv.slice(3) as [string, string, string];
  const started = performance.now();
  const rows = mode.startsWith('duckdb-bulk')
    ? await childDuckdbBulk(dir, mode === 'duckdb-bulk-capped')
    : await childPostgresBulk(dir, target);
  const result: Measure = {
    rows,
    seconds: (performance.now() - started) / 1000,
    maxRssMb: peakRssMb(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
