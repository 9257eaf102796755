import { describeLoadTarget, type LoadTarget, type LoadTargetOrigin, parseLoadTarget } from '../config/load-target.js';
import type { Config } from '../config/schema.js';
import { QueryNoWarehouseError, UsageError } from '../errors.js';
import type { WarehouseDrivers } from '../warehouse/open-warehouse.js';
import type { QueryResult } from '../warehouse/query-result.js';
import { readQuery } from '../warehouse/read-query.js';
import { resolveLoadTarget } from './load-job.js';
import { ORIGIN_WORDS } from './load-summary.js';

/**
 * The target `query` reads: the one `load` writes (`--into`, else `load.into`,
 * else the config's DuckDB file beside its state). With `--into` no config is
 * needed, so a warehouse file can be queried from anywhere.
 */
export function queryTarget(
  config: Config | undefined,
  into?: string,
): { target: LoadTarget; origin: LoadTargetOrigin } {
  if (config) return resolveLoadTarget(config, into);
  const parsed = parseLoadTarget(into ?? '');
  if ('problem' in parsed) throw new UsageError(`--into: ${parsed.problem}`);
  return { target: parsed.target, origin: '--into' };
}

/**
 * `helpdesk-sync query`: `sql` on the load target, reading only (readQuery).
 * No warehouse there yet is said with the load that makes one.
 */
export async function queryJob(
  config: Config | undefined,
  options: { into?: string; sql: string } & WarehouseDrivers,
): Promise<{ target: string; result: QueryResult }> {
  const { target, origin } = queryTarget(config, options.into);
  const described = describeLoadTarget(target);
  try {
    return { target: described, result: await readQuery(target, options.sql, options) };
  } catch (error) {
    if (!(error instanceof QueryNoWarehouseError)) throw error;
    const load = origin === '--into' ? `helpdesk-sync load --into ${options.into}` : 'helpdesk-sync load';
    throw new QueryNoWarehouseError(
      `no warehouse at ${described} (${ORIGIN_WORDS[origin]}): nothing was loaded there yet; load the synced output into it first (${load})`,
      { cause: error },
    );
  }
}
