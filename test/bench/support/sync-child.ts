/**
 * Runs one sync from a JSON config file in its own process and prints its
 * summary and peak RSS as one JSON line, so the parent measures the sync alone
 * (the sandbox runs in another process).
 */
import { readFileSync } from 'node:fs';
import { tuneGarbageCollector } from '../../../src/cli/gc-tuning.js';
import { parseConfig } from '../../../src/config/load.js';
import { silentLogger } from '../../../src/log.js';
import { syncJob } from '../../../src/sync/sync-job.js';

// As the CLI does (src/cli/main.ts); HELPDESK_SYNC_GC_TUNING=off measures V8's defaults.
const tuned = tuneGarbageCollector();
const config = parseConfig(JSON.parse(readFileSync(process.argv[2]!, 'utf8')), 'bench', {});
const started = performance.now();
const { summary } = await syncJob(config, { logger: silentLogger() });
process.stdout.write(
  `${JSON.stringify({
    seconds: (performance.now() - started) / 1000,
    requests: summary.requests.requests,
    scanned: summary.conversations_scanned,
    tuned,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
