import { LoadError } from '../../errors.js';
import type { Manifest } from '../../output/manifest.js';
import { TABLE_NAMES } from '../../output/tables.js';
import { manifestLedgerValues, RECORD_MANIFEST } from '../bookkeeping.js';
import type { ManifestHooks, ManifestLoads } from '../warehouse.js';

/** The one thing the transaction needs of a connection: a statement with `$n` parameters. */
export type RunStatement = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * One transaction for one or more manifests, for every warehouse `load` runs:
 * BEGIN, the schema changes the contract allows, the dialect's work on the
 * manifests' tables, the history tables it keeps (history mode), then per
 * manifest its ledger row and its pipeline bookkeeping, COMMIT; any error rolls
 * it all back, so each manifest is either loaded whole and recorded, or not at
 * all. History is built from the table's batch, which must then hold one
 * manifest's rows only: `load` gives each manifest a transaction of its own in
 * history mode, so every manifest's versions become intervals of their own.
 */
export async function inManifestTransaction(
  run: RunStatement,
  manifests: readonly Manifest[],
  hooks: ManifestHooks,
  work: () => Promise<ManifestLoads>,
): Promise<ManifestLoads> {
  if (hooks.history && manifests.length > 1) {
    // A batch of several manifests would merge their versions into one interval.
    throw new LoadError('history mode loads one manifest per transaction');
  }
  await run('BEGIN');
  try {
    for (const statement of hooks.before ?? []) await run(statement);
    const loads = await work();
    // History after every table's merge, from the batches still in place (history/history-sql.ts).
    const tables = manifests.length === 1 ? (loads.get(manifests[0]!.run_id) ?? {}) : {};
    for (const table of TABLE_NAMES) {
      const statements = tables[table] === undefined ? undefined : hooks.history?.(table);
      if (statements === undefined) continue;
      for (const statement of statements) await run(statement);
      await hooks.fault('history-built');
    }
    for (const manifest of manifests) {
      await run(RECORD_MANIFEST, manifestLedgerValues(manifest, loads.get(manifest.run_id) ?? {}));
      const pipeline = hooks.pipelines?.get(manifest.run_id);
      if (pipeline) await run(pipeline.sql, pipeline.params);
    }
    await hooks.fault('before-commit');
    await run('COMMIT');
    return loads;
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
