import type { OutputFormat } from '../../output/object-keys.js';
import { TABLE_SPECS } from '../../output/rows/table-specs.js';
import type { TableName } from '../../output/tables.js';
import type { Dialect, TableRole } from '../dialect.js';
import { qualifyDedup, qualifyMerge } from '../merge/qualify-merge.js';
import { sqlQuote, trimSlash } from '../table-columns.js';

const TYPES: Dialect['types'] = {
  string: 'STRING',
  int: 'INT64',
  number: 'FLOAT64',
  bool: 'BOOL',
  timestamp: 'TIMESTAMP',
  date: 'DATE',
  string_array: 'ARRAY<STRING>',
  array: 'JSON',
  object: 'JSON',
  json: 'JSON',
};

/**
 * Day partitions of the write time; clustering by key makes the MERGE and the
 * dedup window read the key's blocks instead of the whole partition. The batch
 * table holds one load and is neither.
 */
function tableOptions(table: TableName, role: TableRole): string {
  if (role === 'batch') return '';
  return `\nPARTITION BY DATE(_synced_at)\nCLUSTER BY ${TABLE_SPECS[table].rowKey.join(', ')}`;
}

/** BigQuery accepts QUALIFY only beside a WHERE, GROUP BY or HAVING clause. */
const WHERE = 'WHERE TRUE';

/**
 * LOAD DATA from the files of one manifest. A URI pattern that matches no object
 * fails the load, so a table the manifest lists no file for is left out (its
 * merge would change nothing anyway). A bad line is skipped and reported in the
 * job's errors rather than failing the file.
 */
function recipe(
  table: TableName,
  location: string,
  files: OutputFormat = 'jsonl',
  after: readonly string[] = [],
): string {
  // Parquet: typed columns as they are (timestamps, JSON), lists read as arrays, not as {list: [{element}]}.
  const load =
    files === 'parquet'
      ? [
          `LOAD DATA INTO ${table}_batch FROM FILES (format = 'PARQUET', enable_list_inference = true,`,
          `  uris = [${sqlQuote(`${trimSlash(location)}/${table}/*.parquet`)}]);`,
        ]
      : [
          `LOAD DATA INTO ${table}_batch FROM FILES (format = 'JSON', max_bad_records = 100,`,
          `  uris = [${sqlQuote(`${trimSlash(location)}/${table}/*`)}]);`,
        ];
  return [
    `-- ${table}: load the files of one manifest (leave the table out when it has none), then merge`,
    `TRUNCATE TABLE ${table}_batch;`,
    ...load,
    qualifyMerge(table, `${table}_batch`, WHERE),
    ...after,
  ].join('\n');
}

export const BIGQUERY: Dialect = {
  name: 'bigquery',
  types: TYPES,
  // BigQuery only accepts unenforced keys.
  primaryKey: (keys) => `PRIMARY KEY (${keys.join(', ')}) NOT ENFORCED`,
  tableOptions,
  dedupQuery: (table, raw) => qualifyDedup(table, raw, WHERE),
  mergeStatement: (table, raw) => qualifyMerge(table, raw, WHERE),
  recipe,
  defaultLocation: 'gs://your-bucket/helpdesk',
  howToRun: "Per manifest, in run_id order: run each table's recipe with the URIs of that table's files.",
  contentHash: (c) => `TO_HEX(MD5(TO_JSON_STRING(STRUCT(${c.join(', ')}))))`,
  createOrReplace: true,
};
