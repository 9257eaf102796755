import { QueryError } from '../../errors.js';
import type { QueryResult } from '../query-result.js';
import { exactNumber } from '../query-result.js';
import { reasonOf } from '../table-failure.js';
import { type ConnectPostgres, connectWithPg, type SqlConnection } from './sql-connection.js';

/** Type OIDs of PostgreSQL's numbers: int8, int2, int4, oid, float4, float8, numeric. */
const NUMERIC_OIDS = new Set([20, 21, 23, 26, 700, 701, 1700]);
const WHOLE_OIDS = new Set([20, 21, 23, 26]);

/** A value as JSON: bytes as PostgreSQL's hex text, a bigint's text as a number when exact (times are text already). */
function jsonValue(value: unknown, whole: boolean): unknown {
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return whole ? exactNumber(value) : value;
}

/** The server's word for `a; b` through the extended protocol. */
const SEVERAL_STATEMENTS = /cannot insert multiple commands into a prepared statement/i;

/**
 * Runs `sql`, one statement, in a read-only transaction that is rolled back, so
 * `query` changes nothing whatever it is given: the server refuses a write with
 * its own error, and one statement cannot `COMMIT` and then write.
 */
export async function queryPostgres(db: SqlConnection, describe: string, sql: string): Promise<QueryResult> {
  if (!db.queryArrays) throw new QueryError(`this connection to ${describe} cannot answer a query`);
  try {
    // Times in UTC, as the synced files and DuckDB write them, whatever the server's own zone.
    await db.exec("BEGIN TRANSACTION READ ONLY; SET LOCAL TIME ZONE 'UTC'");
    const { fields, rows } = await db.queryArrays(sql);
    const whole = fields.map((f) => WHOLE_OIDS.has(f.dataTypeID));
    return {
      columns: fields.map((f) => ({ name: f.name, numeric: NUMERIC_OIDS.has(f.dataTypeID) })),
      rows: rows.map((row) => row.map((v, i) => jsonValue(v, whole[i] === true))),
    };
  } catch (cause) {
    const reason = SEVERAL_STATEMENTS.test(reasonOf(cause))
      ? 'it takes one statement at a time (this one holds several)'
      : reasonOf(cause);
    throw new QueryError(`PostgreSQL refused the query: ${reason}`, { cause });
  } finally {
    await db.exec('ROLLBACK').catch(() => undefined);
    await db.close().catch(() => undefined);
  }
}

/** queryPostgres on a new connection to `url`; a server it cannot reach is the query's failure (QUERY_FAILED), not a load's. */
export async function queryPostgresAt(
  url: string,
  describe: string,
  sql: string,
  connect: ConnectPostgres = connectWithPg,
): Promise<QueryResult> {
  let connection: SqlConnection;
  try {
    connection = await connect(url);
  } catch (cause) {
    throw new QueryError(reasonOf(cause), { cause });
  }
  return queryPostgres(connection, describe, sql);
}
