import type { Manifest } from '../output/manifest.js';
import { type ManifestLoad, manifestLedgerValues, RECORD_MANIFEST } from './bookkeeping.js';
import type { ManifestHooks } from './warehouse.js';

/** The one thing the transaction needs of a connection: a statement with `$n` parameters. */
export type RunStatement = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * One manifest, one transaction, for every warehouse `load` runs: BEGIN, the
 * schema changes the contract allows, the dialect's work on the manifest's
 * tables, the ledger row and the pipeline bookkeeping, COMMIT; any error rolls it all back, so a manifest is either
 * loaded whole and recorded, or not at all.
 */
export async function inManifestTransaction(
  run: RunStatement,
  manifest: Manifest,
  hooks: ManifestHooks,
  work: () => Promise<ManifestLoad>,
): Promise<ManifestLoad> {
  await run('BEGIN');
  try {
    for (const statement of hooks.before ?? []) await run(statement);
    const loads = await work();
    await run(RECORD_MANIFEST, manifestLedgerValues(manifest, loads));
    if (hooks.pipeline) await run(hooks.pipeline.sql, hooks.pipeline.params);
    await hooks.fault('before-commit');
    await run('COMMIT');
    return loads;
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
