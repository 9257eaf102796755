import { join } from 'node:path';
import type { RequestQueue } from '../../../src/api/queue/request-queue.js';
import { parseConfig } from '../../../src/config/load.js';
import { silentLogger } from '../../../src/log.js';
import { syncJob } from '../../../src/sync/sync-job.js';

/** The sandbox token the benchmarks use. */
export const TOKEN = 'sandbox-admin';

const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** The config of a benchmark sync into `dir` (defaults everywhere else, as a new user's). */
export function benchConfig(baseUrl: string, dir: string) {
  return parseConfig(
    {
      source: { base_url: baseUrl, token: TOKEN },
      reports: { start_date: day(1), lookback_days: 1 },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state.sqlite') },
    },
    'bench',
    {},
  );
}

/** One sync through `queue` (closed after), timed; `needed` is its requests less the 429s. */
export async function timedSync(baseUrl: string, dir: string, queue: RequestQueue) {
  const config = benchConfig(baseUrl, dir);
  const started = performance.now();
  const { summary } = await syncJob(config, { logger: silentLogger(), queue });
  const wallMs = performance.now() - started;
  const stats = queue.stats();
  queue.close();
  return { wallMs, summary, stats, needed: stats.requests - stats.rateLimited };
}
