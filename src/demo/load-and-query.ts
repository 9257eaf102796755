import type { Config } from '../config/schema.js';
import { formatQueryResult } from '../load/format-query-result.js';
import { loadJob } from '../load/load-job.js';
import { formatLoadSummary } from '../load/load-summary.js';
import type { Logger } from '../log.js';
import { readQuery } from '../warehouse/read-query.js';

/** The one query the demo answers from the warehouse it loaded. */
export const DEMO_QUERY = 'SELECT status, count(*) AS conversations FROM conversations GROUP BY status ORDER BY status';

/**
 * The demo's last step: loads every manifest (of every account in `accounts`)
 * into a DuckDB file and answers `sql` from it as `helpdesk-sync query` does
 * (the same read-only path and table), with the command that asks it again.
 * Returns the lines to print.
 */
export async function loadAndQuery(
  config: Config,
  path: string,
  logger: Logger,
  sql: string = DEMO_QUERY,
  accounts?: Config[],
): Promise<string[]> {
  const summary = await loadJob(config, { into: `duckdb:${path}`, logger, ...(accounts ? { accounts } : {}) });
  const lines = formatLoadSummary(summary).split('\n');
  if (summary.status !== 'succeeded') return lines;
  const result = await readQuery({ kind: 'duckdb', path }, sql);
  lines.push('', `npx helpdesk-sync query --into ${path} "${sql}"`);
  for (const line of formatQueryResult(result, 'table').trimEnd().split('\n')) lines.push(`  ${line}`);
  return lines;
}
