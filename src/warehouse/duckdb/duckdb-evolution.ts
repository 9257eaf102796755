import type { ColumnKind } from '../../output/rows/table-spec.js';
import type { Conversion, Evolution } from '../evolution/evolution.js';
import { sqlList } from '../evolution/evolution.js';
import { sqlQuote } from '../table-columns.js';
import { DUCKDB } from './duckdb-dialect.js';

const CATALOG: Record<ColumnKind, string> = {
  ...DUCKDB.types,
  timestamp: 'TIMESTAMP WITH TIME ZONE',
};

const TEXT = new Set(['VARCHAR']);
const WIDE_TO_TEXT = new Set(['BIGINT', 'INTEGER', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP WITH TIME ZONE', 'JSON']);

/**
 * DuckDB's lossless conversions: text to a timestamp or date when every stored
 * value casts (a bare date is midnight UTC, as the sync reads it); a JSON array of
 * strings to VARCHAR[]; an integer to DOUBLE within 2^53; anything to text.
 */
function conversion(table: string, column: string, from: string, to: ColumnKind): Conversion | undefined {
  const type = DUCKDB.types[to];
  const alter = (using: string) => `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type} USING ${using};`;
  if (TEXT.has(from) && (to === 'timestamp' || to === 'date')) {
    return { lossy: `TRY_CAST(${column} AS ${type}) IS NULL`, alter: alter(`CAST(${column} AS ${type})`) };
  }
  if (from === 'JSON' && to === 'string_array') {
    const strings = `coalesce(list_bool_and(list_transform(json_type(${column}, '$[*]'), x -> x = 'VARCHAR')), true)`;
    return {
      lossy: `NOT (json_type(${column}) = 'ARRAY' AND ${strings})`,
      alter: alter(`CAST(${column} AS VARCHAR[])`),
    };
  }
  if (from === 'BIGINT' && to === 'number') {
    return { lossy: `abs(${column}) > 9007199254740992`, alter: alter(`CAST(${column} AS DOUBLE)`) };
  }
  if (WIDE_TO_TEXT.has(from) && to === 'string') return { lossy: 'false', alter: alter(`CAST(${column} AS VARCHAR)`) };
  return undefined;
}

export const DUCKDB_EVOLUTION: Evolution = {
  catalogTypes: CATALOG,
  catalogQuery: (tables) =>
    'SELECT table_name, column_name, data_type FROM duckdb_columns() ' +
    `WHERE database_name = current_database() AND schema_name = 'main' AND table_name IN (${sqlList(tables)}) ` +
    'ORDER BY table_name, column_index',
  addColumn: (table, column, type) => `ALTER TABLE ${table} ADD COLUMN ${column} ${type};`,
  // DuckDB adds no column with a constraint: the default fills the stored rows, then NOT NULL is set.
  addFilledColumn: (table, column, type, value) => [
    `ALTER TABLE ${table} ADD COLUMN ${column} ${type}${value === undefined ? '' : ` DEFAULT ${sqlQuote(value)}`};`,
    ...(value === undefined ? [] : [`ALTER TABLE ${table} ALTER COLUMN ${column} DROP DEFAULT;`]),
    `ALTER TABLE ${table} ALTER COLUMN ${column} SET NOT NULL;`,
  ],
  conversion,
  renameColumn: (table, column, to) => `ALTER TABLE ${table} RENAME COLUMN ${column} TO ${to};`,
  dropColumn: (table, column) => `ALTER TABLE ${table} DROP COLUMN ${column};`,
};
