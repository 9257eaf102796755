import type { ConfigIssue } from '../../errors.js';
import { TABLE_NAMES, type TableName } from '../../output/tables.js';
import { isPlainObject } from '../../plain-object.js';
import type { Dialect } from '../dialect.js';
import { roleTableName } from '../table-columns.js';
import { historyLoadStatements } from './history-sql.js';

/** `load.history` as the config holds it: every table (`true`), none (`false`, the default), or a list. */
export type HistorySetting = boolean | readonly string[] | undefined;

/** The tables history mode covers, in table order. */
export function historyTables(setting: HistorySetting): TableName[] {
  if (setting === true) return [...TABLE_NAMES];
  if (!Array.isArray(setting)) return [];
  return TABLE_NAMES.filter((t) => setting.includes(t));
}

/**
 * The manifest hook of `load` (ManifestHooks.history): the statements for a
 * covered table; none when history mode covers no table (manifests may then
 * share a transaction). An empty history starts from `<table>_raw` only where
 * `rawWithEveryVersion` names it: a `_raw` the target held before this load and
 * that this load feeds. A `_raw` created by this load holds its batch alone, so
 * such a table's history starts from the keyed rows and the batch.
 */
export function historyHook(
  dialect: Dialect,
  setting: HistorySetting,
  rawWithEveryVersion: readonly string[] = [],
): ((table: TableName) => string[] | undefined) | undefined {
  const covered = new Set(historyTables(setting));
  if (covered.size === 0) return undefined;
  return (table: TableName) =>
    covered.has(table)
      ? historyLoadStatements(dialect, table, rawWithEveryVersion.includes(roleTableName(table, 'raw')))
      : undefined;
}

/**
 * The config rule (see ConfigRule in src/config/load.ts) of `load.history`: a
 * list names output tables only (the config layer does not know them).
 */
export function historyConfigRule(raw: unknown): ConfigIssue[] {
  const load = isPlainObject(raw) ? raw.load : undefined;
  const history = isPlainObject(load) ? load.history : undefined;
  if (!Array.isArray(history)) return [];
  return history.flatMap((name, i) =>
    typeof name === 'string' && (TABLE_NAMES as readonly string[]).includes(name)
      ? []
      : [
          {
            path: `load.history.${i}`,
            message: `unknown table ${JSON.stringify(name)}; expected one of: ${TABLE_NAMES.join(', ')}`,
          },
        ],
  );
}
