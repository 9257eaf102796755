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

/** The target a `load.into` / `--into` text names, or what is wrong with it. */
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
  return { problem: 'expected duckdb:<file> or a postgres:// connection string' };
}

/** The target for logs and summaries: a connection string without its password. */
export function describeLoadTarget(target: LoadTarget): string {
  if (target.kind === 'duckdb') return `duckdb:${target.path}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  // libpq also takes the password as a parameter (postgres://loader@db/warehouse?password=…).
  if (url.searchParams.has('password')) url.searchParams.set('password', '***');
  return url.toString();
}
