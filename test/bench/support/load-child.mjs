/**
 * Runs one `load` in its own process and prints one JSON line: rows merged,
 * seconds, peak RSS. Arguments: the benchmark's directory (its `out/` and
 * `state.sqlite`), the target, and the transaction budget ('' for the default).
 *
 * Plain JavaScript on the built code (dist/, `npm run build`), tuned as the CLI
 * tunes itself: the figures are those of `load` as shipped, without a
 * TypeScript loader's own memory (DuckDB runs in this process: its memory counts).
 */
import { join } from 'node:path';
import { tuneGarbageCollector, withV8Collector } from '../../../dist/cli/gc-tuning.js';
import { parseConfig } from '../../../dist/config/load.js';
import { loadJob } from '../../../dist/load/load-job.js';
import { silentLogger } from '../../../dist/log.js';
import { connectWithPg } from '../../../dist/warehouse/postgres/sql-connection.js';
import { peakRssMb } from './peak-rss.mjs';

tuneGarbageCollector();
const [dir, into, budget] = process.argv.slice(2);
const config = parseConfig(
  {
    source: { base_url: 'http://127.0.0.1:9/v1', token: 'bench' },
    destination: { type: 'local', path: join(dir, 'out') },
    state: { path: join(dir, 'state.sqlite') },
  },
  'bench',
  {},
);
/**
 * With BENCH_STATEMENT_TIMINGS set, PostgreSQL's statements are timed on the
 * loader's side (from sending to the answer), summed by kind: what bounds a load.
 */
const timings = new Map();
const kindOf = (sql) => {
  const text = sql.replace(/^(?:--[^\n]*\n)+/, '').trim();
  const statements = text.split(/;\s*\n/).map((t) => t.trim().split(/\s+/).slice(0, 3).join(' '));
  const head =
    statements.length > 1 ? statements.map((t) => t.split(' ').slice(0, 2).join(' ')).join(' + ') : statements[0];
  return head
    .replace(/\b\w+_(batch|raw)\b/g, '<table>_$1')
    .replace(/INTO \w+/, 'INTO <table>')
    .replace(/COPY \w+/, 'COPY <table>');
};
const timed = async (sql, run) => {
  const start = performance.now();
  try {
    return await run();
  } finally {
    const kind = kindOf(sql);
    const t = timings.get(kind) ?? { n: 0, ms: 0 };
    t.n += 1;
    t.ms += performance.now() - start;
    timings.set(kind, t);
  }
};
const connectPostgres = process.env.BENCH_STATEMENT_TIMINGS
  ? async (url) => {
      const db = await connectWithPg(url);
      return {
        query: (sql, params) => timed(sql, () => db.query(sql, params)),
        exec: (sql) => timed(sql, () => db.exec(sql)),
        copyFrom: (sql, data) => timed(sql, () => db.copyFrom(sql, data)),
        close: () => db.close(),
      };
    }
  : undefined;
const started = performance.now();
const summary = await withV8Collector(() =>
  loadJob(config, {
    into,
    logger: silentLogger(),
    transactionRows: budget ? Number(budget) : undefined,
    connectPostgres,
  }),
);
if (summary.status !== 'succeeded') throw new Error(`load ${summary.status}: ${summary.failure?.message}`);
const rows = Object.values(summary.tables).reduce((sum, t) => sum + t.rows, 0);
const seconds = (performance.now() - started) / 1000;
const statements = Object.fromEntries(
  [...timings]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([kind, t]) => [kind, { n: t.n, s: Number((t.ms / 1000).toFixed(2)) }]),
);
process.stdout.write(
  `${JSON.stringify({ rows, seconds, maxRssMb: peakRssMb(), ...(timings.size > 0 ? { statements } : {}) })}\n`,
);
