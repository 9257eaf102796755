import type { EngineTarget } from '../target.js';
import { describeUrl, ENCODE_HINT } from './postgres-url.js';
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
  describe: (target: PostgresTarget) => describeUrl(target),
  async open(target: PostgresTarget, drivers: PostgresDrivers) {
    const [{ openPostgresWarehouse }, { openCopySpool }, { connectWithPg }] = await Promise.all([
      import('./postgres-connection.js'),
      import('./copy-spool.js'),
      import('./sql-connection.js'),
    ]);
    const connection = await (drivers.connectPostgres ?? connectWithPg)(target.url);
    return openPostgresWarehouse(connection, describeUrl(target), () => openCopySpool(drivers.spoolDir));
  },
  async query(target: PostgresTarget, sql: string, drivers: PostgresDrivers) {
    const { queryPostgresAt } = await import('./postgres-query.js');
    return queryPostgresAt(target.url, describeUrl(target), sql, drivers.connectPostgres);
  },
  // A connection string is not repeated: it holds a password.
  loadArgument: () => undefined,
} as const satisfies EngineTarget<PostgresTarget, PostgresDrivers>;
