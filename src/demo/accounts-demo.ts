import { parseConfigFile } from '../config/load.js';
import { loadOfConfigFile } from '../load/load-job.js';
import { createLogger } from '../log.js';
import type { RunningSandbox } from '../sandbox/start.js';
import { formatAccountsSummary } from '../sync/accounts/format-accounts.js';
import { syncAccounts } from '../sync/accounts/sync-accounts.js';
import type { DemoFolder } from './demo-folder.js';
import { loadAndQuery } from './load-and-query.js';
import { mutateThroughApi } from './mutate.js';

/** What the two-account demo asks its warehouse: each account's conversations by status. */
export const ACCOUNTS_QUERY =
  'SELECT _account, status, count(*) AS conversations FROM conversations GROUP BY ALL ORDER BY _account, status';

/** The two accounts of the demo: the sandbox's first two organizations, each under its own token. */
export const DEMO_ACCOUNTS = ['acme', 'globex'] as const;

/**
 * `npm run demo -- --accounts`: two accounts of one sandbox (each its own
 * organization and token) in one config, synced by one process through one
 * shared budget, changed in one account, synced again, then loaded into one
 * DuckDB file where `_account` tells their rows apart. Returns the lines to print.
 */
export async function accountsDemo(sandbox: RunningSandbox, folder: DemoFolder, rate: number): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const tokens = Object.fromEntries(sandbox.organizations.map((o) => [o.slug, o.tokens.admin]));
  const parsed = parseConfigFile(
    {
      source: { rate_limit: { requests_per_minute: rate, concurrency: 4 } },
      accounts: DEMO_ACCOUNTS.map((name) => ({ name, base_url: sandbox.baseUrl, token: tokens[name] })),
      reports: { lookback_days: 1 },
      destination: { type: 'local', path: folder.out },
      state: { path: folder.state },
      log: { level: 'warn' },
    },
    'demo',
  );
  const logger = createLogger({ level: 'warn' });
  say(`\n== first sync: ${DEMO_ACCOUNTS.join(' and ')}, one process, one budget ==`);
  say(formatAccountsSummary(await syncAccounts(parsed.accounts, { logger })));
  say('\n== changes made through the API, in acme only ==');
  for (const line of await mutateThroughApi(sandbox.baseUrl, tokens.acme as string)) say(`  ${line}`);
  say('\n== second sync: only what changed ==');
  say(formatAccountsSummary(await syncAccounts(parsed.accounts, { logger })));
  say(`\nOutput in ${folder.out}/<account>/, each account's state in ${folder.dir}/<account>/`);
  say(`\n== load both accounts into one DuckDB file, then a query ==`);
  const { config, accounts } = loadOfConfigFile(parsed);
  for (const line of await loadAndQuery(config, folder.warehouse, logger, ACCOUNTS_QUERY, accounts)) say(line);
}
