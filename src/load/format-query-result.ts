import type { QueryResult } from '../warehouse/query-result.js';

/** How `query` prints its rows. */
export const QUERY_FORMATS = ['table', 'json', 'csv'] as const;
export type QueryFormat = (typeof QUERY_FORMATS)[number];

/** A value as one cell of text: NULL, a list or object as JSON, a line break as a space (a table row stays one line). */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\r?\n/g, ' ');
}

/** The rows as an aligned table: a header, a rule, the rows (numbers to the right), then the count. */
function table({ columns, rows }: QueryResult): string {
  const cells = rows.map((row) => row.map(cellText));
  // A reduce, not Math.max(...cells): a spread passes every row as an argument, which a large result overflows.
  const widths = columns.map((c, i) => cells.reduce((w, r) => Math.max(w, r[i]?.length ?? 0), c.name.length));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (columns[i]?.numeric ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const count = `(${rows.length} row${rows.length === 1 ? '' : 's'})`;
  if (columns.length === 0) return `${count}\n`;
  return [
    line(columns.map((c) => c.name)),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
    count,
    '',
  ].join('\n');
}

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled; NULL is empty. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `query`'s output: `table` for a person (aligned, as `psql` and the `duckdb`
 * shell show rows), `json` (an array of objects, one per row, keyed by column)
 * or `csv` (a header, then a line per row) for programs.
 */
export function formatQueryResult(result: QueryResult, format: QueryFormat): string {
  if (format === 'table') return table(result);
  if (format === 'csv') {
    const lines = [result.columns.map((c) => csvField(c.name)), ...result.rows.map((r) => r.map(csvField))];
    return `${lines.map((l) => l.join(',')).join('\r\n')}\r\n`;
  }
  const objects = result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c.name, row[i] ?? null])));
  return `${JSON.stringify(objects, null, 2)}\n`;
}
