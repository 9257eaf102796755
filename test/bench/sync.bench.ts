/**
 * Whole-sync targets of docs/performance.md, for a first sync under the rate limit:
 * - wall time ≤ 1.05 × (requests ÷ allowed rate), zero 429s when alone;
 * - requests ≤ the minimum the API allows (+1%).
 * Memory on a large account (peak RSS of a 1 000 000-conversation scan, with and
 * without the GC tuning) is measured by scale.bench.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { syncJob } from '../../src/sync/sync-job.js';

const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

async function pacing(): Promise<boolean> {
  const rate = 1800;
  const sandbox = await startSandbox({ port: 0, seed: 2, conversations: 600, rateLimit: rate, rateWindowSeconds: 60 });
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-sync-'));
  try {
    const config = parseConfig(
      {
        source: { base_url: sandbox.baseUrl, token: 'sandbox-admin', rate_limit: { requests_per_minute: rate } },
        reports: { start_date: day(1), lookback_days: 1 },
        destination: { type: 'local', path: join(dir, 'out') },
        state: { path: join(dir, 'state.sqlite') },
      },
      'bench',
      {},
    );
    const started = performance.now();
    const { summary } = await syncJob(config, { logger: silentLogger() });
    const seconds = (performance.now() - started) / 1000;
    const stats = sandbox.stats();
    const inboxes = summary.tables.inboxes.rows;
    // The fewest requests the API allows for this first sync: list pages at 100, one thread per
    // conversation, one list per dimension, one tag page and one report per day per inbox.
    const minimum =
      Math.ceil(summary.conversations_scanned / 100) + summary.conversations_scanned + 4 + inboxes * (1 + 2);
    const ideal = summary.requests.requests / (rate / 60);
    const ratio = seconds / ideal;
    const excess = summary.requests.requests / minimum;
    const rateLimited = stats.by_status['429'] ?? 0;
    process.stdout.write(
      `first sync of ${summary.conversations_scanned} conversations at ${rate}/min: ${summary.requests.requests} requests` +
        ` (minimum ${minimum}, ratio ${excess.toFixed(3)}), ${seconds.toFixed(2)} s for an ideal ${ideal.toFixed(2)} s` +
        ` → ratio ${ratio.toFixed(3)} (target ≤ 1.05), 429s ${rateLimited} (target 0)\n`,
    );
    return ratio <= 1.05 && rateLimited === 0 && excess <= 1.01;
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  if (!(await pacing())) throw new Error('sync benchmark missed a target');
}
