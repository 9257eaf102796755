/** A PostgreSQL connection string in words: how to write one, and how it is shown without its password. */

/** How to write a user or password into a connection URL (never echoing the URL: it holds the password). */
export const ENCODE_HINT =
  'a user or password holding @ : / ? # % or a space must be percent-encoded (@ is %40, : %3A, / %2F, ? %3F, # %23, ' +
  '% %25, space %20), e.g. postgres://loader:p%40ss@db.example.com:5432/warehouse';

/** The connection string for logs and summaries: without its password. */
export function describeUrl(target: { readonly url: string }): string {
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  // libpq also takes the password as a parameter (postgres://loader@db/warehouse?password=…).
  if (url.searchParams.has('password')) url.searchParams.set('password', '***');
  return url.toString();
}
