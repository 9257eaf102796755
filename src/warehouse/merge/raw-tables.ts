import { TABLE_NAMES, type TableName } from '../../output/tables.js';
import { renderTables } from '../ddl.js';
import type { Dialect } from '../dialect.js';
import type { SchemaReader } from '../evolution/schema-contract.js';
import { roleTableName } from '../table-columns.js';

/**
 * Direct load (docs/loading.md, "Direct load and `_raw`"): a load merges each
 * manifest into the keyed tables (and `<table>_history`) and keeps no second
 * copy of its rows. `load.keep_raw: true` keeps `<table>_raw` as well: every
 * version as it arrived, appended by every load. A target loaded before direct
 * load has `_raw` tables that its readers may still query, so it is never
 * silently left behind: with the setting unset such a target keeps being fed
 * (and the load says so), and with `keep_raw: false` the load says which
 * tables it no longer feeds.
 */
export interface RawTables {
  /** Whether this load appends every row to `<table>_raw`. */
  keep: boolean;
  /** The `_raw` tables the target held before this load. */
  found: string[];
}

/** Decides, from the setting and the target's catalog, whether this load feeds `_raw`. */
export async function rawTables(reader: SchemaReader, setting: boolean | undefined): Promise<RawTables> {
  const names = TABLE_NAMES.map((t) => roleTableName(t, 'raw'));
  const found = [...new Set((await reader.catalog(names)).map((c) => c.table))].sort(
    (a, b) => names.indexOf(a) - names.indexOf(b),
  );
  return { keep: setting ?? found.length > 0, found };
}

/** What the load tells about `_raw` (undefined: nothing to tell, a target loaded directly). */
export function rawNotice(
  raw: RawTables,
  setting: boolean | undefined,
): { level: 'info' | 'warn'; text: string } | undefined {
  if (raw.found.length === 0) return undefined;
  if (setting === undefined) {
    return {
      level: 'info',
      text:
        `the target has ${raw.found.length} _raw table(s) from before direct load: still appending every row to them ` +
        '(load.keep_raw: false stops it; load.keep_raw: true keeps it without this notice)',
    };
  }
  if (setting) return undefined;
  return {
    level: 'warn',
    text: `load.keep_raw is false: no longer appending to ${raw.found.join(', ')}; drop them when nothing reads them`,
  };
}

/** The `_raw` tables of a load that keeps them, created where absent (a table added by a later schema set). */
export function rawTablesDdl(dialect: Dialect, tables: readonly TableName[] = TABLE_NAMES): string {
  return renderTables(dialect, tables, ['raw'], false);
}

/**
 * The `<table>_batch` tables earlier versions created in the target for the
 * load's working rows (empty between loads): a load now works in temporary
 * tables of its own session, so they are dropped. `schema` qualifies them where
 * a temporary table of the same name could be found first.
 */
export function dropBatchTables(schema = ''): string {
  return TABLE_NAMES.map((t) => `DROP TABLE IF EXISTS ${schema}${roleTableName(t, 'batch')};`).join('\n');
}
