#!/usr/bin/env node
/**
 * `npm run demo`: the whole pipeline on embedded defaults. Starts the bundled
 * sandbox on a free port, syncs it into ./demo/out with its state in ./demo,
 * changes a few conversations through the API (a reply, a status change, a
 * trash, a force-delete), syncs again and shows what the second run picked up;
 * then loads both runs into a DuckDB file and answers one query from it.
 * It writes only under ./demo, so it never meets the output or state of a
 * config of the user's (./out, ./.helpdesk-sync are the example configs' paths).
 * `npm run demo -- --accounts` shows two accounts in one config instead, under
 * ./demo-accounts (./accounts-demo.ts).
 */
import { parseConfig } from '../config/load.js';
import { createLogger } from '../log.js';
import { startSandbox } from '../sandbox/start.js';
import { formatSummary } from '../sync/summary/format-summary.js';
import { syncJob } from '../sync/sync-job.js';
import { accountsDemo, DEMO_ACCOUNTS } from './accounts-demo.js';
import { demoFolder, prepareDemoFolder } from './demo-folder.js';
import { loadAndQuery } from './load-and-query.js';
import { mutateThroughApi } from './mutate.js';

const DEMO = demoFolder('./demo');
/** `npm run demo -- --accounts`: two accounts in one config, in a folder of their own. */
const ACCOUNTS = process.argv.includes('--accounts');
const ACCOUNTS_DEMO = demoFolder('./demo-accounts');
// The demo raises the sandbox's limit (and ours to match) so it takes seconds,
// not minutes; a real run keeps the API's 300 requests per minute.
const RATE = 3000;

async function main(): Promise<void> {
  if (ACCOUNTS) return accounts();
  prepareDemoFolder(DEMO);
  const sandbox = await startSandbox({ port: 0, seed: 1, conversations: 300, rateLimit: RATE, rateWindowSeconds: 60 });
  process.stdout.write(`sandbox API at ${sandbox.baseUrl}\n`);
  const startDate = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
  const config = parseConfig(
    {
      source: {
        base_url: sandbox.baseUrl,
        token: 'sandbox-admin',
        rate_limit: { requests_per_minute: RATE, concurrency: 4 },
      },
      reports: { start_date: startDate, lookback_days: 2 },
      destination: { type: 'local', path: DEMO.out },
      state: { path: DEMO.state },
      log: { level: 'warn' },
    },
    'demo',
  );
  const logger = createLogger({ level: 'warn' });
  try {
    process.stdout.write('\n== first sync: everything ==\n');
    const first = await syncJob(config, { logger });
    process.stdout.write(`${formatSummary(first.summary, first.manifestKey)}\n`);

    process.stdout.write('\n== changes made through the API ==\n');
    for (const line of await mutateThroughApi(sandbox.baseUrl, 'sandbox-admin')) process.stdout.write(`  ${line}\n`);

    process.stdout.write('\n== second sync: only what changed ==\n');
    const second = await syncJob(config, { logger });
    process.stdout.write(`${formatSummary(second.summary, second.manifestKey)}\n`);
    process.stdout.write(
      `\nOutput in ${DEMO.out}/ (gzip JSONL per table, manifests in ${DEMO.out}/_manifests/), state in ${DEMO.state}\n`,
    );
    process.stdout.write(
      `\n== load into DuckDB, then a query ==\n${(await loadAndQuery(config, DEMO.warehouse, logger)).join('\n')}\n`,
    );
  } finally {
    await sandbox.close();
  }
}

/** Two accounts of one sandbox, each an organization of its own, through one shared budget. */
async function accounts(): Promise<void> {
  prepareDemoFolder(ACCOUNTS_DEMO, DEMO_ACCOUNTS);
  const sandbox = await startSandbox({ port: 0, seed: 1, organizations: [240, 60], rateLimit: RATE });
  process.stdout.write(`sandbox API at ${sandbox.baseUrl}: organizations ${DEMO_ACCOUNTS.join(', ')}\n`);
  try {
    await accountsDemo(sandbox, ACCOUNTS_DEMO, RATE);
  } finally {
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
