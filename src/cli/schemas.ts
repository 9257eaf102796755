import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { DDL_DIALECTS, renderDdl } from '../output/ddl.js';
import { tableJsonSchema } from '../output/json-schema.js';
import { TABLE_NAMES, TABLES, type TableName } from '../output/tables.js';
import { runCommand } from './run-command.js';

export const SCHEMA_FORMATS = ['jsonschema', ...DDL_DIALECTS] as const;
export type SchemaFormat = (typeof SCHEMA_FORMATS)[number];

/**
 * What `helpdesk-sync schemas` prints: JSON Schema of the tables (one object keyed
 * by table, or the table's schema alone with --table), or CREATE TABLE statements
 * with primary keys for a warehouse (DuckDB adds a `read_<table>(files)` macro).
 */
export function renderSchemas(format: SchemaFormat, table?: string): string {
  if (table !== undefined && !Object.hasOwn(TABLES, table)) {
    throw new UsageError(`unknown table "${table}"; expected one of: ${TABLE_NAMES.join(', ')}`);
  }
  const tables = table === undefined ? TABLE_NAMES : [table as TableName];
  if (format !== 'jsonschema') return renderDdl(format, tables);
  const body =
    table === undefined
      ? Object.fromEntries(tables.map((t) => [t, tableJsonSchema(t)]))
      : tableJsonSchema(table as TableName);
  return `${JSON.stringify(body, null, 2)}\n`;
}

export function registerSchemasCommand(program: Command): void {
  program
    .command('schemas')
    .description('print the output tables as JSON Schema or warehouse DDL (with primary keys)')
    .addOption(new Option('--format <format>', 'output format').choices(SCHEMA_FORMATS).default('jsonschema'))
    .option('--table <name>', 'only this table')
    .action((flags: { format: SchemaFormat; table?: string }) =>
      runCommand(async () => {
        process.stdout.write(renderSchemas(flags.format, flags.table));
        return 0;
      }),
    );
}
