import type { Manifest } from '../output/manifest.js';
import { manifestLedgerValues, RECORD_MANIFEST } from './bookkeeping.js';
import type { ManifestHooks, ManifestLoads } from './warehouse.js';

/** The one thing the transaction needs of a connection: a statement with `$n` parameters. */
export type RunStatement = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * One transaction for one or more manifests, for every warehouse `load` runs:
 * BEGIN, the schema changes the contract allows, the dialect's work on the
 * manifests' tables, then per manifest its ledger row and its pipeline
 * bookkeeping, COMMIT; any error rolls it all back, so each manifest is either
 * loaded whole and recorded, or not at all. The steps are the template every
 * dialect fills in: a new step (say, history tables) goes between `work` and the
 * ledger rows, inside the same transaction.
 */
export async function inManifestTransaction(
  run: RunStatement,
  manifests: readonly Manifest[],
  hooks: ManifestHooks,
  work: () => Promise<ManifestLoads>,
): Promise<ManifestLoads> {
  await run('BEGIN');
  try {
    for (const statement of hooks.before ?? []) await run(statement);
    const loads = await work();
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
