/**
 * Where `load` writes: a DuckDB database file (`duckdb:<path>`, the embedded
 * default) or a PostgreSQL database (`postgres://` or `postgresql://` connection
 * string, usually interpolated from the environment so its password stays out of
 * the file).
 */
export type LoadTarget = { kind: 'duckdb'; path: string } | { kind: 'postgres'; url: string };

/** Where a load's target came from, said in its summary. */
export type LoadTargetOrigin = '--into' | 'load.into' | 'default';

/** How to write a user or password into a connection URL (never echoing the URL: it holds the password). */
export const ENCODE_HINT =
  'a user or password holding @ : / ? # % or a space must be percent-encoded (@ is %40, : %3A, / %2F, ? %3F, # %23, ' +
  '% %25, space %20), e.g. postgres://loader:p%40ss@db.example.com:5432/warehouse';

/** The forms `load.into` and `--into` take, for the message that refuses another. */
export const LOAD_TARGET_FORMS =
  'expected duckdb:<file>, a file ending in .duckdb or .db, or a postgres:// connection string';

/** A path that can only mean a DuckDB file: it ends in .duckdb or .db and is no URL (`scheme://`). */
const BARE_DUCKDB_FILE = /\.(duckdb|db)$/i;

/**
 * The target a `load.into` / `--into` text names, or what is wrong with it.
 * A bare path ending in `.duckdb` or `.db` is a DuckDB file, as `duckdb:<path>` is.
 */
export function parseLoadTarget(text: string): { target: LoadTarget } | { problem: string } {
  if (text.startsWith('duckdb:')) {
    const path = text.slice('duckdb:'.length);
    return path === ''
      ? { problem: 'duckdb: needs a file path, e.g. duckdb:./warehouse.duckdb' }
      : { target: { kind: 'duckdb', path } };
  }
  if (/^postgres(ql)?:\/\//i.test(text)) {
    // The authority ends at the first / ? or #; a user or password holding one of them, or an @, misleads every parser.
    const authority = text.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/)[0] ?? '';
    if (!URL.canParse(text) || authority.split('@').length > 2)
      return { problem: `not a valid connection URL: ${ENCODE_HINT}` };
    return { target: { kind: 'postgres', url: text } };
  }
  if (BARE_DUCKDB_FILE.test(text) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return { target: { kind: 'duckdb', path: text } };
  }
  return { problem: LOAD_TARGET_FORMS };
}

/** The target for logs and summaries: a connection string without its password. */
export function describeLoadTarget(target: LoadTarget): string {
  if (target.kind === 'duckdb') return `duckdb:${target.path}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}
