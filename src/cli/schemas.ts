import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { DDL_DIALECTS, renderDdl } from '../output/ddl.js';
import { tableJsonSchema } from '../output/json-schema.js';
import { dedupQuery, mergeStatement } from '../output/merge-sql.js';
import { TABLE_NAMES, TABLES, type TableName } from '../output/tables.js';
import { runCommand } from './run-command.js';

export const SCHEMA_FORMATS = ['jsonschema', ...DDL_DIALECTS] as const;
export type SchemaFormat = (typeof SCHEMA_FORMATS)[number];

/**
 * What `helpdesk-sync schemas` prints: JSON Schema of the tables (one object keyed
 * by table, or the table's schema alone with --table), or CREATE TABLE statements
 * with primary keys for a warehouse (DuckDB adds a `read_<table>(files)` macro),
 * or with --merge the dedup query and MERGE statement of each table.
 */
export function renderSchemas(format: SchemaFormat, table?: string, options: { merge?: boolean } = {}): string {
  if (table !== undefined && !Object.hasOwn(TABLES, table)) {
    throw new UsageError(`unknown table "${table}"; expected one of: ${TABLE_NAMES.join(', ')}`);
  }
  const tables = table === undefined ? TABLE_NAMES : [table as TableName];
  if (options.merge) {
    if (format === 'jsonschema')
      throw new UsageError('--merge needs a warehouse --format (duckdb, bigquery, snowflake, postgres)');
    return `${tables.map((t) => mergeSql(format, t)).join('\n\n')}\n`;
  }
  if (format !== 'jsonschema') return renderDdl(format, tables);
  const body =
    table === undefined
      ? Object.fromEntries(tables.map((t) => [t, tableJsonSchema(t)]))
      : tableJsonSchema(table as TableName);
  return `${JSON.stringify(body, null, 2)}\n`;
}

function mergeSql(format: Exclude<SchemaFormat, 'jsonschema'>, table: TableName): string {
  return [
    `-- ${table}: current rows of ${table}_raw (latest _synced_at per key, tombstones removed)`,
    `${dedupQuery(format, table)};`,
    `-- ${table}: merge the rows loaded into ${table}_raw into ${table}`,
    mergeStatement(format, table),
  ].join('\n');
}

export function registerSchemasCommand(program: Command): void {
  program
    .command('schemas')
    .description('print the output tables as JSON Schema or warehouse DDL (with primary keys)')
    .addOption(new Option('--format <format>', 'output format').choices(SCHEMA_FORMATS).default('jsonschema'))
    .option('--table <name>', 'only this table')
    .option('--merge', 'print the dedup query and the MERGE from <table>_raw instead of the DDL')
    .action((flags: { format: SchemaFormat; table?: string; merge?: boolean }) =>
      runCommand(async () => {
        process.stdout.write(renderSchemas(flags.format, flags.table, { merge: flags.merge }));
        return 0;
      }),
    );
}
