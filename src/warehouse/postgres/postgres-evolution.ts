import type { ColumnKind } from '../../output/rows/table-spec.js';
import type { Conversion, Evolution } from '../evolution/evolution.js';
import { sqlList } from '../evolution/evolution.js';
import { sqlQuote } from '../table-columns.js';
import { POSTGRES } from './postgres-dialect.js';

const CATALOG: Record<ColumnKind, string> = {
  ...POSTGRES.types,
  timestamp: 'timestamp with time zone',
};

const WIDE_TO_TEXT = new Set([
  'bigint',
  'integer',
  'double precision',
  'boolean',
  'date',
  'timestamp with time zone',
  'jsonb',
]);

/**
 * Helpers of the conversions, created with the setup: whether a text casts to a
 * type (the cast itself is the judge, as the load's own typing is), and a JSON
 * array of strings as text[] (ALTER … USING takes no subquery).
 */
export const EVOLUTION_HELPERS = `-- helpdesk_casts(value, type): whether a text value casts to the type (schema evolution)
CREATE OR REPLACE FUNCTION helpdesk_casts(value text, target regtype) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT %L::%s', value, target);
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$$;
-- helpdesk_text_array(value): a JSON array of strings as text[] (schema evolution)
CREATE OR REPLACE FUNCTION helpdesk_text_array(value jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(e ORDER BY n), '{}') FROM jsonb_array_elements_text(value) WITH ORDINALITY AS a(e, n)
$$;`;

/**
 * PostgreSQL's lossless conversions: text to a timestamp or date when every
 * stored value casts; a JSON array of strings to text[]; a bigint to double
 * within 2^53; anything to text.
 */
function conversion(table: string, column: string, from: string, to: ColumnKind): Conversion | undefined {
  const type = POSTGRES.types[to];
  const alter = (using: string) => `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type} USING ${using};`;
  if (from === 'text' && (to === 'timestamp' || to === 'date')) {
    return { lossy: `NOT helpdesk_casts(${column}, '${type}')`, alter: alter(`${column}::${type}`) };
  }
  if (from === 'jsonb' && to === 'string_array') {
    return {
      lossy: `NOT (jsonb_typeof(${column}) = 'array' AND NOT jsonb_path_exists(${column}, '$[*] ? (@.type() != "string")'))`,
      alter: alter(`helpdesk_text_array(${column})`),
    };
  }
  if (from === 'bigint' && to === 'number') {
    return { lossy: `abs(${column}) > 9007199254740992`, alter: alter(`${column}::double precision`) };
  }
  if (WIDE_TO_TEXT.has(from) && to === 'string') return { lossy: 'false', alter: alter(`${column}::text`) };
  return undefined;
}

export const POSTGRES_EVOLUTION: Evolution = {
  catalogTypes: CATALOG,
  catalogQuery: (tables) =>
    'SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type ' +
    'FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid ' +
    `WHERE c.relnamespace = current_schema()::regnamespace AND c.relname IN (${sqlList(tables)}) ` +
    'AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum',
  addColumn: (table, column, type) => `ALTER TABLE ${table} ADD COLUMN ${column} ${type};`,
  // A constant default fills the stored rows without rewriting the table; the new rows bring their own.
  addFilledColumn: (table, column, type, value) =>
    value === undefined
      ? [`ALTER TABLE ${table} ADD COLUMN ${column} ${type} NOT NULL;`]
      : [
          `ALTER TABLE ${table} ADD COLUMN ${column} ${type} NOT NULL DEFAULT ${sqlQuote(value)};`,
          `ALTER TABLE ${table} ALTER COLUMN ${column} DROP DEFAULT;`,
        ],
  primaryKeyQuery: (tables) =>
    'SELECT c.relname AS table_name, k.conname AS constraint_name, ' +
    'array_to_json(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS u(n, i) ' +
    'JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i))::text AS columns ' +
    "FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE k.contype = 'p' " +
    `AND c.relnamespace = current_schema()::regnamespace AND c.relname IN (${sqlList(tables)}) ORDER BY c.relname`,
  replacePrimaryKey: (key, keys) => [
    `ALTER TABLE ${key.table} DROP CONSTRAINT "${key.constraint.replaceAll('"', '""')}";`,
    `ALTER TABLE ${key.table} ADD PRIMARY KEY (${keys.join(', ')});`,
  ],
  conversion,
  renameColumn: (table, column, to) => `ALTER TABLE ${table} RENAME COLUMN ${column} TO ${to};`,
  dropColumn: (table, column) => `ALTER TABLE ${table} DROP COLUMN ${column};`,
};
