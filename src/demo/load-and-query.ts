import type { Config } from '../config/schema.js';
import { loadDuckdbApi } from '../duckdb-api.js';
import { loadJob } from '../load/load-job.js';
import { formatLoadSummary } from '../load/load-summary.js';
import type { Logger } from '../log.js';

/** The one query the demo answers from the warehouse it loaded. */
export const DEMO_QUERY = 'SELECT status, count(*) AS conversations FROM conversations GROUP BY status ORDER BY status';

/**
 * The demo's last step: loads every manifest (of every account in `accounts`)
 * into a DuckDB file and answers `query` from it, as a user would with the
 * `duckdb` shell, one line per row of its `columns`. Returns the lines to print.
 */
export async function loadAndQuery(
  config: Config,
  path: string,
  logger: Logger,
  query: { sql: string; columns: readonly string[] } = { sql: DEMO_QUERY, columns: ['status', 'conversations'] },
  accounts?: Config[],
): Promise<string[]> {
  const summary = await loadJob(config, { into: `duckdb:${path}`, logger, ...(accounts ? { accounts } : {}) });
  const lines = formatLoadSummary(summary).split('\n');
  if (summary.status !== 'succeeded') return lines;
  const { DuckDBInstance } = await loadDuckdbApi();
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const rows = (await connection.runAndReadAll(query.sql)).getRowObjectsJson();
    lines.push('', `duckdb ${path} "${query.sql}"`);
    for (const row of rows) {
      const cells = query.columns.map((c, i) =>
        i === query.columns.length - 1 ? String(row[c]) : String(row[c]).padEnd(10),
      );
      lines.push(`  ${cells.join(' ')}`);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return lines;
}
