import { ACCOUNT_COLUMN } from '../../output/rows/metadata-columns.js';
import type { ColumnKind } from '../../output/rows/table-spec.js';
import { TABLE_SPECS } from '../../output/rows/table-specs.js';
import type { TableName } from '../../output/tables.js';
import { LEDGER_DDL, LOAD_ERRORS_DDL } from '../bookkeeping.js';
import type { TableRole } from '../dialect.js';
import { HISTORY_COLUMNS } from '../history/history-sql.js';
import { PIPELINES_DDL } from '../pipeline.js';
import { roleTableName, typedColumns } from '../table-columns.js';
import { type AccountBackfill, keyDifferences, missingAccount } from './account-evolution.js';
import type { Expected, SchemaDifference, SchemaReader } from './evolution.js';

// Declared with the catalog's types (evolution.ts), which account-evolution.ts reads without this file.
export type { Expected, SchemaDifference, SchemaReader } from './evolution.js';

/** `evolve`: add missing columns, convert types that keep every value; `freeze`: stop on any difference. */
export type SchemaContract = 'evolve' | 'freeze';

/** What the tables are compared against besides the schema set. */
export interface CompareOptions {
  /** The stored rows' account, should `_account` be added to tables that hold rows. */
  backfill: AccountBackfill;
  /** The output tables history mode keeps `<table>_history` for (compared where it exists). */
  history?: readonly TableName[];
  /** Whether the load appends to `<table>_raw` (raw-tables.ts): then those are compared too. @default false */
  raw?: boolean;
}

const DDL_KINDS: Record<string, ColumnKind> = {
  text: 'string',
  integer: 'int',
  bigint: 'int',
  timestamptz: 'timestamp',
};

/** The columns of a bookkeeping table, read off its own DDL (one text for both warehouses). */
function ddlColumns(ddl: string): { table: string; columns: Array<{ name: string; kind: ColumnKind }> } {
  const table = /CREATE TABLE IF NOT EXISTS (\w+)/.exec(ddl)![1]!;
  const columns = [...ddl.matchAll(/^ {2}(\w+) (text|integer|bigint|timestamptz)\b/gm)].map((m) => ({
    name: m[1]!,
    kind: DDL_KINDS[m[2]!]!,
  }));
  return { table, columns };
}

/** The bookkeeping tables `load` keeps, compared by column name (their types are the same text on both warehouses). */
const BOOKKEEPING = [LOAD_ERRORS_DDL, LEDGER_DDL, PIPELINES_DDL].map(ddlColumns);

/** A history table's columns (history-sql.ts): the table's, without `_deleted`, then the interval. */
function historyColumns(
  reader: SchemaReader,
  table: TableName,
): Array<{ name: string; kind: ColumnKind; notNull: boolean }> {
  const keys = new Set<string>(TABLE_SPECS[table].rowKey);
  const kinds = { valid_from: 'timestamp', valid_to: 'timestamp', is_current: 'bool' } as const;
  const byType = new Map(Object.entries(reader.dialectTypes).map(([kind, type]) => [type, kind as ColumnKind]));
  return [
    ...typedColumns(reader.dialectTypes, table)
      .filter((c) => c.name !== '_deleted')
      .map((c) => ({ name: c.name, kind: byType.get(c.type)!, notNull: keys.has(c.name) })),
    ...HISTORY_COLUMNS.map((name) => ({ name, kind: kinds[name], notNull: name !== 'valid_to' })),
  ];
}

function expectedOf(
  reader: SchemaReader,
  tables: readonly TableName[],
  history: readonly TableName[],
  raw: boolean,
): Map<string, Expected[]> {
  const roles: readonly TableRole[] = raw ? ['keyed', 'raw'] : ['keyed'];
  const out = new Map<string, Expected[]>();
  const expected = (c: { name: string; kind: ColumnKind; notNull: boolean }): Expected => ({
    column: c.name,
    kind: c.kind,
    type: reader.dialectTypes[c.kind],
    catalogType: reader.evolution.catalogTypes[c.kind],
    notNull: c.notNull,
  });
  const byType = new Map(Object.entries(reader.dialectTypes).map(([kind, type]) => [type, kind as ColumnKind]));
  for (const table of tables) {
    const columns = typedColumns(reader.dialectTypes, table).map((c) =>
      expected({ name: c.name, kind: byType.get(c.type)!, notNull: c.notNull }),
    );
    for (const role of roles) out.set(roleTableName(table, role), columns);
    if (history.includes(table)) out.set(`${table}_history`, historyColumns(reader, table).map(expected));
  }
  for (const { table, columns } of BOOKKEEPING) {
    out.set(
      table,
      columns.map((c) => ({ column: c.name, type: reader.dialectTypes[c.kind], catalogType: '', notNull: false })),
    );
  }
  return out;
}

/** Sample of stored values that would not convert, for the message. */
async function lossyValues(reader: SchemaReader, table: string, column: string, lossy: string): Promise<number> {
  return reader.count(`SELECT count(*) AS n FROM ${table} WHERE ${column} IS NOT NULL AND (${lossy})`);
}

async function typeDifference(
  reader: SchemaReader,
  table: string,
  stored: string,
  want: Expected,
): Promise<SchemaDifference> {
  const base = { table, column: want.column, kind: 'type' as const, stored, expected: want.catalogType };
  const aside = reader.evolution.renameColumn(table, want.column, `${want.column}_before`);
  const conversion = want.kind && reader.evolution.conversion(table, want.column, stored, want.kind);
  if (!conversion) return { ...base, blocked: 'no conversion keeps every value', fix: [aside] };
  const lossy = await lossyValues(reader, table, want.column, conversion.lossy);
  if (lossy > 0) return { ...base, blocked: `${lossy} stored value(s) would not convert`, fix: [aside] };
  return { ...base, change: [conversion.alter], fix: [conversion.alter] };
}

/**
 * Compares the warehouse's tables of the given output tables (current, and
 * `_raw` where the load keeps it) and its bookkeeping tables with the schema set `load` writes, and
 * returns every difference: what evolve would run for each, or why it cannot.
 */
export async function compareSchema(
  reader: SchemaReader,
  tables: readonly TableName[],
  options: CompareOptions,
): Promise<SchemaDifference[]> {
  const history = options.history ?? [];
  const expected = expectedOf(reader, tables, history, options.raw === true);
  const stored = new Map<string, Map<string, string>>();
  for (const c of await reader.catalog([...expected.keys()])) {
    if (!stored.has(c.table)) stored.set(c.table, new Map());
    stored.get(c.table)!.set(c.column, c.type);
  }
  const out: SchemaDifference[] = [];
  for (const [table, columns] of expected) {
    // A history table is created by the first load that keeps it.
    if (table.endsWith('_history') && !stored.has(table)) continue;
    const have = stored.get(table) ?? new Map<string, string>();
    for (const want of columns) {
      const type = have.get(want.column);
      if (type === undefined && want.column === ACCOUNT_COLUMN) {
        out.push(await missingAccount(reader, table, want, options.backfill));
      } else if (type === undefined) {
        const add = reader.evolution.addColumn(table, want.column, want.type);
        const blocked = want.notNull ? 'a key or metadata column cannot be added to rows that exist' : undefined;
        out.push({
          table,
          column: want.column,
          kind: 'missing',
          expected: want.catalogType || want.type,
          fix: [add],
          ...(blocked ? { blocked } : { change: [add] }),
        });
      } else if (want.catalogType !== '' && type !== want.catalogType) {
        out.push(await typeDifference(reader, table, type, want));
      }
    }
    const known = new Set(columns.map((c) => c.column));
    for (const [column, type] of have) {
      if (!known.has(column))
        out.push({ table, column, kind: 'extra', stored: type, fix: [reader.evolution.dropColumn(table, column)] });
    }
  }
  // After the columns: a key on `_account` needs the column first.
  return [...out, ...(await keyDifferences(reader, tables))];
}

function line(d: SchemaDifference): string {
  if (d.kind === 'key') return `  ${d.table}: primary key ${d.stored}, expected ${d.expected}`;
  const what =
    d.kind === 'missing'
      ? `missing (expected ${d.expected})`
      : d.kind === 'type'
        ? `${d.stored}, expected ${d.expected}`
        : `${d.stored}, not in the schema set (evolve keeps it; no longer written)`;
  return `  ${d.table}.${d.column}: ${what}${d.blocked ? `: ${d.blocked}` : ''}`;
}

/** The fix of one difference; dropping a column is only offered, commented, since it holds data. */
const fixOf = (d: SchemaDifference) =>
  d.fix.map((fix) => (d.kind === 'extra' ? `  -- only if nothing in it is needed: ${fix}` : `  ${fix}`));

/**
 * The statements evolve runs before the first row, or the message that stops the
 * load: every difference, each table and column with the stored and expected
 * type, and the statements that fix them.
 */
export function applyContract(
  differences: readonly SchemaDifference[],
  contract: SchemaContract,
  context: { target: string; schemaSet: string },
): { statements: string[] } | { refusal: string } {
  const stops = differences.filter((d) => d.blocked || contract === 'freeze');
  if (stops.length === 0) return { statements: differences.flatMap((d) => d.change ?? []) };
  const fixes = stops.flatMap(fixOf);
  const evolvable = contract === 'freeze' && differences.every((d) => !d.blocked);
  return {
    refusal: [
      `the tables of ${context.target} differ from schema set ${context.schemaSet} (load.schema_contract: ${contract}); nothing was loaded:`,
      ...differences.map(line),
      evolvable
        ? 'fix: set load.schema_contract: evolve (it makes exactly these changes), or run these statements and load again:'
        : 'fix: run these statements (a column set aside keeps its values; evolve then adds it with the expected type), and load again:',
      ...fixes,
    ].join('\n'),
  };
}
