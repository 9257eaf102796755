import { LoadError } from '../../errors.js';
import type { Manifest } from '../../output/manifest.js';
import type { TableName } from '../../output/tables.js';
import { sqlQuote } from '../table-columns.js';

/**
 * The account of the rows of a table's files that may not name one: every file
 * of a manifest written before rows named their account (it has no `account`),
 * and the files a manifest lists of an earlier run (a crashed run's, perhaps of
 * an earlier version), by the run that wrote them. Empty for today's manifests.
 */
export function unnamedAccounts(
  table: TableName,
  manifests: readonly Manifest[],
  accountOf: (manifest: Manifest) => string | null,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const manifest of manifests) {
    for (const file of manifest.files) {
      if (file.table !== table || (manifest.account !== undefined && file.run_id === manifest.run_id)) continue;
      const account = accountOf(manifest);
      if (account === null) {
        throw new LoadError(
          `manifest ${manifest.run_id} names neither its account nor its source (written before either was recorded), ` +
            'so the account of its rows is unknown: load it with the version that wrote it',
        );
      }
      out.set(file.run_id, account);
    }
  }
  return out;
}

/**
 * The statement that gives the rows of `batch` that name no account (a file
 * written before `_account` was) the account of the run that wrote them
 * (unnamedAccounts); undefined when the batch holds no such file. Run after the
 * files are landed and before the batch is appended and merged; the batch
 * tables `load` fills are its session's own, without the NOT NULL of `_account`.
 */
export function fillAccountStatement(
  table: TableName,
  batch: string,
  manifests: readonly Manifest[],
  accountOf: ((manifest: Manifest) => string | null) | undefined,
): string | undefined {
  const runs = unnamedAccounts(table, manifests, accountOf ?? ((m) => m.account ?? null));
  if (runs.size === 0) return undefined;
  const cases = [...runs].map(([run, account]) => `WHEN ${sqlQuote(run)} THEN ${sqlQuote(account)}`).join(' ');
  return `UPDATE ${batch} SET _account = CASE _run_id ${cases} END WHERE _account IS NULL;`;
}
