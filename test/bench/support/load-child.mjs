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
const started = performance.now();
const summary = await withV8Collector(() =>
  loadJob(config, {
    into,
    logger: silentLogger(),
    transactionRows: budget ? Number(budget) : undefined,
  }),
);
if (summary.status !== 'succeeded') throw new Error(`load ${summary.status}: ${summary.failure?.message}`);
const rows = Object.values(summary.tables).reduce((sum, t) => sum + t.rows, 0);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ rows, seconds, maxRssMb: peakRssMb() })}\n`);
