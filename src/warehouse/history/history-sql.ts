import { TABLE_SPECS } from '../../output/rows/table-specs.js';
import type { TableName } from '../../output/tables.js';
import type { Dialect } from '../dialect.js';
import { columnNames } from '../table-columns.js';

/**
 * History mode (docs/history.md): `<table>_history` holds one row per
 * version of each key with the interval it was valid, `[valid_from, valid_to)`,
 * `valid_to` null while it is current, `is_current` true then. A deletion (a
 * tombstone) adds no row: it closes the last interval at its time.
 *
 * The time that bounds an interval is the source's `updated_at` where the table
 * has one (conversations, business hours, holidays): when the change happened,
 * not when a run saw it. Elsewhere, and for tombstones, it is `_synced_at`: the
 * run that saw the change. The bounds only grow per key (each is at least the
 * one before), so intervals never overlap and leave no gap; a version whose
 * `updated_at` is not later than the previous version's start (a change the
 * source did not stamp) starts where that one starts and is replaced at once.
 * A version equal to the one before it in every column but the run metadata (a
 * row written again) adds nothing.
 */

export const HISTORY_COLUMNS = ['valid_from', 'valid_to', 'is_current'] as const;

/** The step table: the versions one load adds, with their bounds, before they are applied. */
const STEP = 'helpdesk_history_step';

/** A history table's key is its table's (the account first); it keeps the account beside the run metadata. */
function columnsOf(table: TableName) {
  const spec = TABLE_SPECS[table];
  const own = spec.columns.map((c) => c.name);
  return { keys: [...spec.rowKey], own, kept: [...own, '_synced_at', '_run_id', '_extra', '_account'] };
}

/** The bounding time of a row of `table` (see above). */
export function boundOf(table: TableName, row = ''): string {
  const p = row ? `${row}.` : '';
  const stamped = TABLE_SPECS[table].columns.some((c) => c.name === 'updated_at' && c.kind === 'timestamp');
  return stamped
    ? `CASE WHEN ${p}_deleted THEN ${p}_synced_at ELSE coalesce(${p}updated_at, ${p}_synced_at) END`
    : `${p}_synced_at`;
}

/**
 * The versions to apply, with `vf` (valid from), `vt` (valid to, null for the
 * last) and `src` (0: the key's current history row, 1: a new version). Reads
 * `source` (the batch, or `_raw` to build the whole history); with `incremental`
 * each key's current row in `<table>_history` takes part, and only newer rows
 * of the source count.
 */
export function historyVersions(dialect: Dialect, table: TableName, source: string, incremental: boolean): string {
  const { keys, kept } = columnsOf(table);
  const history = `${table}_history`;
  const on = (a: string, b: string) => keys.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
  const by = `PARTITION BY ${keys.join(', ')} ORDER BY _synced_at, _run_id, src`;
  const fromSource = [...kept, '_deleted'].map((c) => `s.${c}`).join(', ');
  const incoming = incremental
    ? [
        `incoming AS (SELECT ${fromSource}, ${boundOf(table, 's')} AS t FROM ${source} s`,
        `  LEFT JOIN (SELECT * FROM ${history} WHERE is_current) c ON ${on('c', 's')}`,
        `  WHERE c.${keys[0]} IS NULL OR s._synced_at > c._synced_at OR (s._synced_at = c._synced_at AND s._run_id > c._run_id)),`,
        'seq AS (',
        `  SELECT ${kept.map((c) => `c.${c}`).join(', ')}, false AS _deleted, c.valid_from AS t, 0 AS src FROM ${history} c`,
        `  WHERE c.is_current AND EXISTS (SELECT 1 FROM incoming i WHERE ${on('i', 'c')})`,
        `  UNION ALL SELECT ${kept.join(', ')}, _deleted, t, 1 AS src FROM incoming),`,
      ]
    : [`seq AS (SELECT ${fromSource}, ${boundOf(table, 's')} AS t, 1 AS src FROM ${source} s),`];
  return [
    'WITH',
    ...incoming,
    // A version's content, hashed the warehouse's way (the key, own columns and `_extra`; not the run metadata).
    `hashed AS (SELECT *, ${dialect.contentHash([...columnsOf(table).own, '_extra'])} AS h FROM seq),`,
    `marked AS (SELECT *, lag(_deleted) OVER (${by}) AS prev_deleted, lag(h) OVER (${by}) AS prev_h FROM hashed),`,
    // A live version opens an interval when it differs from the row before it (or follows none, or a
    // tombstone); a tombstone counts when it follows a live row; the current row always takes part.
    'kept AS (SELECT * FROM marked WHERE src = 0',
    '  OR (NOT _deleted AND (prev_deleted IS NULL OR prev_deleted OR h <> prev_h))',
    '  OR (_deleted AND NOT prev_deleted)),',
    `bounded AS (SELECT *, max(t) OVER (${by} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS vf FROM kept)`,
    `SELECT *, lead(vf) OVER (${by}) AS vt FROM bounded`,
  ].join('\n');
}

/** The history table of `table` in a dialect: its columns and metadata (no `_deleted`), then the interval. */
export function historyDdl(dialect: Dialect, table: TableName): string {
  const { keys } = columnsOf(table);
  const spec = TABLE_SPECS[table];
  const t = dialect.types;
  const columns = [
    ...spec.columns.map((c) => `  ${c.name} ${t[c.kind]}${keys.includes(c.name) ? ' NOT NULL' : ''}`),
    `  _synced_at ${t.timestamp} NOT NULL`,
    `  _run_id ${t.string} NOT NULL`,
    `  _extra ${t.object}`,
    `  _account ${t.string} NOT NULL`,
    `  valid_from ${t.timestamp} NOT NULL`,
    `  valid_to ${t.timestamp}`,
    `  is_current ${t.bool} NOT NULL`,
  ];
  return `CREATE TABLE IF NOT EXISTS ${table}_history (\n${columns.join(',\n')}\n);`;
}

/**
 * Where history starts while `<table>_history` is empty (history turned on for
 * a target that holds rows already): with `_raw` (load.keep_raw), every version
 * it holds, so history starts at the first version loaded; without, the
 * table's current rows that the batch does not replace, beside the batch (after
 * the merge the table holds the batch's latest rows, which the batch brings
 * anyway). Columns by name: schema evolution adds a column last.
 */
function firstVersions(table: TableName, raw: boolean): string {
  const { keys, all } = columnNames(table);
  const columns = all.join(', ');
  if (raw) return `SELECT ${columns} FROM ${table}_raw`;
  const on = keys.map((k) => `b.${k} = k.${k}`).join(' AND ');
  return (
    `SELECT ${columns} FROM ${table}_batch UNION ALL SELECT ${all.map((c) => `k.${c}`).join(', ')} FROM ${table} k ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${table}_batch b WHERE ${on})`
  );
}

/**
 * The statements `load` runs in a manifest's transaction, after the table's merge:
 * the history table when absent, the versions of the batch (or, while the history
 * is empty, those it starts from: firstVersions), the current rows they close,
 * and the rows they add.
 */
export function historyLoadStatements(dialect: Dialect, table: TableName, raw = false): string[] {
  const { keys, kept } = columnsOf(table);
  const history = `${table}_history`;
  const columns = columnNames(table).all.join(', ');
  const source =
    `(SELECT ${columns} FROM ${table}_batch WHERE EXISTS (SELECT 1 FROM ${history}) ` +
    `UNION ALL SELECT * FROM (${firstVersions(table, raw)}) f WHERE NOT EXISTS (SELECT 1 FROM ${history}))`;
  const step = historyVersions(dialect, table, source, true);
  const create = dialect.createOrReplace
    ? [`CREATE OR REPLACE TEMP TABLE ${STEP} AS ${step};`]
    : [`DROP TABLE IF EXISTS ${STEP};`, `CREATE TEMP TABLE ${STEP} AS ${step};`];
  const update =
    `UPDATE ${history} SET valid_to = s.vt, is_current = false FROM ${STEP} s\n` +
    `  WHERE s.src = 0 AND s.vt IS NOT NULL AND ${history}.is_current AND ` +
    `${keys.map((k) => `${history}.${k} = s.${k}`).join(' AND ')};`;
  const insert =
    `INSERT INTO ${history} (${kept.join(', ')}, valid_from, valid_to, is_current)\n` +
    `  SELECT ${kept.join(', ')}, vf, vt, vt IS NULL FROM ${STEP} WHERE src = 1 AND NOT _deleted;`;
  return [historyDdl(dialect, table), ...create, update, insert];
}

/**
 * The whole history of `table` from every version of its rows (`_raw`, or another
 * table or subquery holding them), as a query: the rows `<table>_history` holds.
 */
export function historySelect(dialect: Dialect, table: TableName, versions = `${table}_raw`): string {
  const { kept } = columnsOf(table);
  return [
    `SELECT ${kept.join(', ')}, vf AS valid_from, vt AS valid_to, vt IS NULL AS is_current FROM (`,
    historyVersions(dialect, table, versions, false),
    ') v WHERE NOT _deleted',
  ].join('\n');
}
