import type { Config } from '../config/schema.js';
import { loadDuckdbApi } from '../duckdb-api.js';
import { loadJob } from '../load/load-job.js';
import { formatLoadSummary } from '../load/load-summary.js';
import type { Logger } from '../log.js';

/** The one query the demo answers from the warehouse it loaded. */
export const DEMO_QUERY = 'SELECT status, count(*) AS conversations FROM conversations GROUP BY status ORDER BY status';

/**
 * The demo's last step: loads every manifest into a DuckDB file and answers
 * DEMO_QUERY from it, as a user would with the `duckdb` shell. Returns the lines to print.
 */
export async function loadAndQuery(config: Config, path: string, logger: Logger): Promise<string[]> {
  const summary = await loadJob(config, { into: `duckdb:${path}`, logger });
  const lines = formatLoadSummary(summary).split('\n');
  if (summary.status !== 'succeeded') return lines;
  const { DuckDBInstance } = await loadDuckdbApi();
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const rows = (await connection.runAndReadAll(DEMO_QUERY)).getRowObjectsJson();
    lines.push('', `duckdb ${path} "${DEMO_QUERY}"`);
    for (const row of rows) lines.push(`  ${String(row.status).padEnd(10)} ${row.conversations}`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return lines;
}
