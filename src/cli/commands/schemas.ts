import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { jsonSchemaText, tableJsonSchema } from '../../output/json-schema.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../output/object-keys.js';
import { SKIP_KEY_CHECK } from '../../output/privacy/privacy-issues.js';
import { compilePrivacyPolicy, NO_PRIVACY, type PrivacyPolicy } from '../../output/privacy/privacy-policy.js';
import { TABLE_NAMES, TABLES, type TableName } from '../../output/tables.js';
import { dbtProjectFiles } from '../../warehouse/dbt-export.js';
import { DIALECT_NAMES, DIALECTS } from '../../warehouse/dialects.js';
import { type HistorySetting, historyTables } from '../../warehouse/history/history-tables.js';
import { mergeSql, renderWarehouseScript } from '../../warehouse/warehouse-script.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';

export const SCHEMA_FORMATS = ['jsonschema', ...DIALECT_NAMES, 'dbt'] as const;
export type SchemaFormat = (typeof SCHEMA_FORMATS)[number];

export interface SchemasOptions {
  merge?: boolean;
  /** Where the files are, in the printed load recipes (a directory, gs:// prefix or @stage). */
  location?: string;
  /** The config's privacy policy: JSON Schemas then say which columns are hashed or dropped. @default none */
  privacy?: PrivacyPolicy;
  /** The format of the files the recipes load (`destination.format`). @default 'jsonl' */
  files?: OutputFormat;
  /** History mode in the printed recipes: each table's `<table>_history` rebuilt after its merge (`load.history`). */
  history?: HistorySetting;
}

/** The tables `--history` names (all when it names none); an unknown name is a usage error. */
function historyOf(setting: HistorySetting): TableName[] {
  const unknown = Array.isArray(setting) ? setting.filter((t) => !Object.hasOwn(TABLES, t)) : [];
  if (unknown.length > 0)
    throw new UsageError(`--history: unknown table ${unknown.join(', ')}; expected: ${TABLE_NAMES.join(', ')}`);
  return historyTables(setting);
}

/**
 * What `helpdesk-sync schemas` prints: JSON Schema of the tables (one object keyed
 * by table, or the table's schema alone with --table); or for a warehouse the
 * script of its tables (keyed, and `_batch`, each load's stage), helpers and a
 * load-and-merge recipe per table (with `--history`, the history statements after it); or with --merge the dedup query and MERGE of
 * each table. `dbt` writes files instead (see writeDbtProject).
 */
export function renderSchemas(format: SchemaFormat, table?: string, options: SchemasOptions = {}): string {
  if (table !== undefined && !Object.hasOwn(TABLES, table)) {
    throw new UsageError(`unknown table "${table}"; expected one of: ${TABLE_NAMES.join(', ')}`);
  }
  const tables = table === undefined ? TABLE_NAMES : [table as TableName];
  if (format === 'dbt') throw new UsageError('--format dbt writes a dbt project fragment: give --out <dir>');
  if (options.history && (options.merge || format === 'jsonschema'))
    throw new UsageError('--history adds to the warehouse script: give a warehouse --format, without --merge');
  if (options.merge) {
    if (format === 'jsonschema')
      throw new UsageError(`--merge needs a warehouse --format (${DIALECT_NAMES.join(', ')})`);
    return `${tables.map((t) => mergeSql(DIALECTS[format], t)).join('\n\n')}\n`;
  }
  if (format !== 'jsonschema') {
    const history = historyOf(options.history).filter((t) => tables.includes(t));
    return renderWarehouseScript(DIALECTS[format], tables, options.location, options.files, history);
  }
  const privacy = options.privacy ?? NO_PRIVACY;
  const body =
    table === undefined
      ? Object.fromEntries(tables.map((t) => [t, tableJsonSchema(t, privacy)]))
      : tableJsonSchema(table as TableName, privacy);
  return jsonSchemaText(body);
}

/** Writes the dbt project fragment under `dir` (files are replaced); returns the paths written. */
export function writeDbtProject(dir: string): string[] {
  return Object.entries(dbtProjectFiles()).map(([path, text]) => {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    return target;
  });
}

interface SchemasFlags {
  format: SchemaFormat;
  table?: string;
  merge?: boolean;
  location?: string;
  out?: string;
  config?: string;
  files: OutputFormat;
  history?: true | string;
}

export function registerSchemasCommand(program: Command): void {
  program
    .command('schemas')
    .description(
      'print the output tables as JSON Schema, or a warehouse script (tables, load and merge), or write dbt models',
    )
    .addOption(new Option('--format <format>', 'output format').choices(SCHEMA_FORMATS).default('jsonschema'))
    .option('--table <name>', 'only this table')
    .option('--merge', 'print the dedup query and the MERGE from <table>_batch instead of the script')
    .option('--location <where>', 'where the files are, in the load recipes: directory, gs:// prefix or @stage')
    .addOption(
      new Option('--files <format>', 'the format of the files the load recipes read (destination.format)')
        .choices(OUTPUT_FORMATS)
        .default('jsonl'),
    )
    .option(
      '--history [tables]',
      'in the warehouse script, bring <table>_history up to each merge: these tables (comma-separated), or all',
    )
    .option('--out <dir>', 'with --format dbt: directory of the dbt project to write the models into')
    .option(
      '-c, --config <file>',
      "JSON Schema under this config's privacy policy (hashed and dropped columns, versions)",
    )
    .action((flags: SchemasFlags) =>
      runCommand(async () => {
        if (flags.format === 'dbt') {
          if (flags.out === undefined) throw new UsageError('--format dbt writes files: give --out <dir>');
          if (flags.table !== undefined || flags.merge)
            throw new UsageError('--format dbt takes neither --table nor --merge');
          for (const path of writeDbtProject(flags.out)) process.stdout.write(`${path}\n`);
          return 0;
        }
        if (flags.out !== undefined) throw new UsageError('--out is for --format dbt');
        if (flags.config !== undefined && flags.format !== 'jsonschema') {
          throw new UsageError(
            '--config applies to --format jsonschema (warehouse types do not change under a policy)',
          );
        }
        // The policy only describes here: it hashes nothing, so it needs no key.
        const privacy =
          flags.config === undefined
            ? undefined
            : // Every account of a file shares its privacy policy.
              compilePrivacyPolicy(readConfigFile(flags.config).file.privacy, SKIP_KEY_CHECK);
        process.stdout.write(
          renderSchemas(flags.format, flags.table, {
            merge: flags.merge,
            location: flags.location,
            privacy,
            files: flags.files,
            history: typeof flags.history === 'string' ? flags.history.split(',').map((t) => t.trim()) : flags.history,
          }),
        );
        return 0;
      }),
    );
}
