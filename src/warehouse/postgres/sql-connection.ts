import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LoadError } from '../../errors.js';
import { registerSecret } from '../../redact.js';
import { describeUrl, ENCODE_HINT } from './postgres-url.js';

/**
 * The little a PostgreSQL warehouse needs of a connection. The pg driver provides
 * it in production; tests hand in PGlite (PostgreSQL compiled to WASM) through the
 * same interface, so both run the same statements.
 */
export interface SqlConnection {
  /** One statement with `$n` parameters; its rows. */
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Several statements, no parameters. */
  exec(sql: string): Promise<void>;
  /**
   * `COPY … FROM STDIN` of the given data, chunk after chunk as the server takes them.
   * Absent on a connection that cannot stream a COPY (PGlite): the caller inserts instead.
   */
  copyFrom?(sql: string, data: AsyncIterable<string | Uint8Array>): Promise<void>;
  /**
   * One statement (no parameters) through the extended protocol, which refuses
   * `a; b`: nothing can follow a `COMMIT` out of the caller's transaction. Its
   * columns in order with their type OIDs, its rows as arrays (`query` gives
   * objects, which lose the order and a repeated name). Absent where only the
   * load runs (PGlite).
   */
  queryArrays?(sql: string): Promise<{ fields: Array<{ name: string; dataTypeID: number }>; rows: unknown[][] }>;
  close(): Promise<void>;
}

/** The driver's reason, with what to check when the host does not resolve (often an unencoded character in the password). */
function connectProblem(cause: unknown): string {
  const error = cause as NodeJS.ErrnoException;
  const reason = error?.message ?? String(cause);
  if (error?.code === 'ENOTFOUND' || error?.code === 'EAI_AGAIN')
    return `${reason}: the host does not resolve; check it, and note that ${ENCODE_HINT}`;
  return reason;
}

/** date, time, timestamp, timestamptz, interval, timetz: type OIDs whose values stay the server's text. */
const TIME_OIDS = new Set([1082, 1083, 1114, 1184, 1186, 1266]);

/**
 * pg's parsers, except that times stay as the server wrote them: pg makes a
 * JavaScript Date of them, which drops microseconds and reads a date at local
 * midnight (another day once written in UTC, east of Greenwich).
 */
function textTimes(types: typeof import('pg').types) {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      TIME_OIDS.has(oid) ? (value: string) => value : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
  };
}

/** Opens a SqlConnection for a connection string. */
export type ConnectPostgres = (url: string) => Promise<SqlConnection>;

/**
 * The pg driver (node-postgres: pure JavaScript, maintained). Loaded on first use,
 * so commands that never load do not pay for it. The password is registered as a
 * secret before connecting, so no error or log line can carry it.
 */
export const connectWithPg: ConnectPostgres = async (url) => {
  registerSecret(decodeURIComponent(new URL(url).password));
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  // An idle connection the server drops would otherwise crash the process with an unhandled 'error'.
  let lost: Error | undefined;
  client.on('error', (error) => {
    lost = error;
  });
  try {
    await client.connect();
  } catch (cause) {
    await client.end().catch(() => undefined);
    throw new LoadError(`could not connect to PostgreSQL at ${describeUrl({ url })}: ${connectProblem(cause)}`, {
      cause,
    });
  }
  const alive = () => {
    if (lost) throw new LoadError(`the PostgreSQL connection was lost: ${lost.message}`, { cause: lost });
  };
  return {
    async query(sql, params) {
      alive();
      return (await client.query(sql, params)).rows;
    },
    async exec(sql) {
      alive();
      await client.query(sql);
    },
    async queryArrays(sql) {
      alive();
      // queryMode is pg's (8.12 on), not yet in its types.
      const config = { text: sql, rowMode: 'array', queryMode: 'extended', types: textTimes(pg.types) } as const;
      const result = await client.query<unknown[]>(config);
      return { fields: result.fields ?? [], rows: result.rows ?? [] };
    },
    async copyFrom(sql, data) {
      alive();
      const { from } = await import('pg-copy-streams');
      await pipeline(Readable.from(data), client.query(from(sql)));
    },
    close: () => client.end(),
  };
};
