import type { EngineTarget } from '../target.js';
import type { ConnectPostgres } from './sql-connection.js';

/** A PostgreSQL database: a `postgres://` or `postgresql://` connection string. */
export interface PostgresTarget {
  readonly kind: 'postgres';
  readonly url: string;
}

/** How PostgreSQL is reached; tests hand in PGlite. */
export interface PostgresDrivers {
  /** @default the pg driver */
  connectPostgres?: ConnectPostgres;
  /** Where a PostgreSQL load spools the rows it encodes ahead of their COPY (copy-spool.ts). @default the OS temporary directory */
  spoolDir?: string;
}

/** How to write a user or password into a connection URL (never echoing the URL: it holds the password). */
export const ENCODE_HINT =
  'a user or password holding @ : / ? # % or a space must be percent-encoded (@ is %40, : %3A, / %2F, ? %3F, # %23, ' +
  '% %25, space %20), e.g. postgres://loader:p%40ss@db.example.com:5432/warehouse';

/** The connection string for logs and summaries: without its password. */
function describe(target: PostgresTarget): string {
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}

export const POSTGRES_TARGET = {
  kind: 'postgres',
  title: 'PostgreSQL',
  form: 'a postgres:// connection string',
  parse(text: string) {
    if (!/^postgres(ql)?:\/\//i.test(text)) return undefined;
    // The authority ends at the first / ? or #; a user or password holding one of them, or an @, misleads every parser.
    const authority = text.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/)[0] ?? '';
    if (!URL.canParse(text) || authority.split('@').length > 2)
      return { problem: `not a valid connection URL: ${ENCODE_HINT}` };
    return { target: { kind: 'postgres', url: text } as const };
  },
  text: (target: PostgresTarget) => target.url,
  describe,
  async open(target: PostgresTarget, drivers: PostgresDrivers) {
    const [{ openPostgresWarehouse }, { openCopySpool }, { connectWithPg }] = await Promise.all([
      import('./postgres-connection.js'),
      import('./copy-spool.js'),
      import('./sql-connection.js'),
    ]);
    const connection = await (drivers.connectPostgres ?? connectWithPg)(target.url);
    return openPostgresWarehouse(connection, describe(target), () => openCopySpool(drivers.spoolDir));
  },
} as const satisfies EngineTarget<PostgresTarget, PostgresDrivers>;
