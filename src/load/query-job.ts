import { describeLoadTarget } from '../config/load-target.js';
import { QueryNoWarehouseError } from '../errors.js';
import { targetEngine } from '../warehouse/engines.js';
import type { WarehouseDrivers } from '../warehouse/open-warehouse.js';
import type { QueryResult } from '../warehouse/query-result.js';
import { readQuery } from '../warehouse/read-query.js';
import type { ResolvedTarget } from './load-job.js';
import { ORIGIN_WORDS } from './load-summary.js';

/**
 * `helpdesk-sync query`: `sql` on the target load writes (`--into`, else
 * `load.into`, else the DuckDB file beside the state; the command line resolves
 * it), reading only (readQuery). No warehouse there yet is said with the load
 * that makes one.
 */
export async function queryJob(
  { target, origin }: ResolvedTarget,
  options: { sql: string } & WarehouseDrivers,
): Promise<{ target: string; result: QueryResult }> {
  const described = describeLoadTarget(target);
  try {
    return { target: described, result: await readQuery(target, options.sql, options) };
  } catch (error) {
    if (!(error instanceof QueryNoWarehouseError)) throw error;
    const argument = origin === '--into' ? targetEngine(target).loadArgument(target) : undefined;
    const load = argument === undefined ? 'helpdesk-sync load' : `helpdesk-sync load --into ${argument}`;
    throw new QueryNoWarehouseError(
      `no warehouse at ${described} (${ORIGIN_WORDS[origin]}): nothing was loaded there yet; load the synced output into it first (${load})`,
      { cause: error },
    );
  }
}
