import type { OutputFormat } from '../output/object-keys.js';
import { SCHEMA_SET_VERSION } from '../output/rows/schema-version.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import { renderWarehouseDdl } from './ddl.js';
import type { Dialect } from './dialect.js';
import { historyLoadStatements } from './history/history-sql.js';

/**
 * The warehouse script `schemas --format <dialect>` prints: the tables, then per
 * output table a load-and-merge recipe. Per table the warehouse keeps `<table>`
 * (current rows, what the dbt sources read) and `<table>_batch`, the stage of one
 * load (its files' rows, emptied by the next load). Each recipe empties the
 * batch, loads the new files into it and merges it into `<table>`, so a merge
 * reads only the new rows and no table keeps a second copy of every version
 * (direct load, docs/loading.md). A table with no new files (or none at all
 * yet) loads nothing and changes nothing.
 */
export interface ScriptSection {
  /** `setup` (tables and helpers, idempotent) or the output table the recipe loads. */
  name: 'setup' | TableName;
  sql: string;
}

/** The script in sections: setup first, then one load-and-merge recipe per table. */
export function warehouseScript(
  dialect: Dialect,
  tables: readonly TableName[] = TABLE_NAMES,
  location = dialect.defaultLocation,
  files: OutputFormat = 'jsonl',
  history: readonly TableName[] = [],
): ScriptSection[] {
  const setup = [
    `-- helpdesk-sync tables for ${dialect.name}, schema set ${SCHEMA_SET_VERSION}; the setup statements are idempotent.\n-- ${dialect.howToRun}`,
    renderWarehouseDdl(dialect, tables).trimEnd(),
    dialect.setupExtra,
  ].filter((part) => part !== undefined);
  return [
    { name: 'setup', sql: setup.join('\n\n') },
    // History mode (docs/history.md): after a table's merge, its history brought up to the batch,
    // as `load` does it, in the recipe's transaction where it has one.
    ...tables.map((t) => ({
      name: t,
      sql: dialect.recipe(t, location, files, history.includes(t) ? historyStatements(dialect, t) : []),
    })),
  ];
}

/** The text `schemas --format <dialect>` prints. */
export function renderWarehouseScript(
  dialect: Dialect,
  tables?: readonly TableName[],
  location?: string,
  files?: OutputFormat,
  history?: readonly TableName[],
): string {
  return `${warehouseScript(dialect, tables, location, files, history)
    .map((s) => s.sql)
    .join('\n\n')}\n`;
}

/** History's statements in a recipe, under a comment that says what they do. */
function historyStatements(dialect: Dialect, table: TableName): string[] {
  return [
    `-- ${table}_history: every version of ${table} with the interval it was valid, brought up to ${table}_batch`,
    ...historyLoadStatements(dialect, table),
  ];
}

/** What `schemas --format <dialect> --merge` prints for one table: the dedup query and the MERGE from `_batch`. */
export function mergeSql(dialect: Dialect, table: TableName): string {
  return [
    `-- ${table}: current rows of ${table}_batch (latest _synced_at per key, tombstones removed)`,
    `${dialect.dedupQuery(table, `${table}_batch`)};`,
    `-- ${table}: merge the rows loaded into ${table}_batch into ${table} (in one transaction where it takes two statements)`,
    dialect.mergeStatement(table, `${table}_batch`),
  ].join('\n');
}
