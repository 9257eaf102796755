import { describe, expect, it } from 'vitest';
import { LoadError } from '../../../src/errors.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { inManifestTransaction } from '../../../src/warehouse/merge/manifest-transaction.js';
import type { ManifestHooks, ManifestLoads } from '../../../src/warehouse/warehouse.js';
import { manifestFixture } from '../support/manifest-fixture.js';

const manifest = (runId: string) => manifestFixture(runId);

/** A connection that records its statements (the ledger's by its first words). */
function recorder() {
  const statements: string[] = [];
  const run = async (sql: string) => {
    statements.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
  };
  return { statements, run };
}

const hooks = (history?: ManifestHooks['history']): ManifestHooks => ({
  onTable: () => undefined,
  fault: async () => undefined,
  history,
});

const loadsOf = (manifests: Manifest[]): ManifestLoads =>
  new Map(manifests.map((m) => [m.run_id, { tags: { rows: 1, errors: 0 } }]));

describe('inManifestTransaction', () => {
  it('history mode: the history statements of the tables the manifest loaded, after the merge, before the ledger row', async () => {
    const { statements, run } = recorder();
    const one = [manifest('r1')];
    const history = (table: string) => (table === 'tags' ? ['HISTORY OF tags'] : undefined);
    await inManifestTransaction(run, one, hooks(history), async () => {
      await run('MERGE INTO tags');
      return loadsOf(one);
    });
    expect(statements).toEqual([
      'BEGIN',
      'MERGE INTO tags',
      'HISTORY OF tags',
      'INSERT INTO helpdesk_loaded_manifests',
      'COMMIT',
    ]);
  });

  it('history mode refuses several manifests in one transaction: their versions would share one interval', async () => {
    const { statements, run } = recorder();
    const two = [manifest('r1'), manifest('r2')];
    const work = async () => loadsOf(two);
    await expect(
      inManifestTransaction(
        run,
        two,
        hooks(() => ['HISTORY']),
        work,
      ),
    ).rejects.toBeInstanceOf(LoadError);
    expect(statements).toEqual([]);
  });

  it('without history, several manifests share the transaction, one ledger row each', async () => {
    const { statements, run } = recorder();
    const two = [manifest('r1'), manifest('r2')];
    await inManifestTransaction(run, two, hooks(), async () => loadsOf(two));
    expect(statements.filter((s) => s.startsWith('INSERT INTO helpdesk_loaded_manifests'))).toHaveLength(2);
    expect(statements.at(0)).toBe('BEGIN');
    expect(statements.at(-1)).toBe('COMMIT');
  });
});
