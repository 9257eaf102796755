import { existsSync } from 'node:fs';
import type { LoadDuckdbApi } from '../../duckdb-api.js';
import { LockHeldError, QueryError, QueryNoWarehouseError } from '../../errors.js';
import type { QueryResult } from '../query-result.js';
import { exactNumber } from '../query-result.js';
import { reasonOf } from '../table-failure.js';
import { checkDuckdbFile } from './check-duckdb-file.js';
import { importDriver } from './duckdb-connection.js';
import { duckdbSession } from './duckdb-session.js';

const NUMERIC =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/;
const WHOLE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;

/**
 * `read` with the driver writing a TIMESTAMPTZ in UTC, as the synced files and
 * PostgreSQL's answer do: it writes one in this machine's zone otherwise (its
 * offset is a static of the value class, read when a value becomes text).
 */
function inUtc<T>(zone: { timezoneOffsetInMinutes: number }, read: () => T): T {
  const local = zone.timezoneOffsetInMinutes;
  zone.timezoneOffsetInMinutes = 0;
  try {
    return read();
  } finally {
    zone.timezoneOffsetInMinutes = local;
  }
}

/**
 * Runs `sql` on the DuckDB file at `path`, opened read-only: the file must exist
 * (nothing is created), and a statement that would write is refused by DuckDB.
 * A load writing the file meanwhile holds DuckDB's lock: said as such (exit 75).
 */
export async function queryDuckdb(path: string, sql: string, importDuckdb: LoadDuckdbApi): Promise<QueryResult> {
  const { DuckDBInstance, DuckDBTimestampTZValue } = await importDriver(importDuckdb);
  // Asked of the file system, not read from the driver's wording when opening fails.
  if (!existsSync(path)) throw new QueryNoWarehouseError(`no DuckDB database at ${path}`);
  try {
    await checkDuckdbFile(path);
  } catch (error) {
    throw new QueryError(reasonOf(error), { cause: error });
  }
  let instance: Awaited<ReturnType<typeof DuckDBInstance.create>>;
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  } catch (cause) {
    const reason = reasonOf(cause);
    if (/lock/i.test(reason)) {
      throw new LockHeldError(`another process is writing the DuckDB file ${path} (a load?); query it when that ends`, {
        cause,
      });
    }
    throw new QueryError(`could not open the DuckDB file ${path}: ${reason}`, { cause });
  }
  const connection = await instance.connect();
  try {
    const reader = await duckdbSession(connection).read(sql);
    const types = reader.columnTypes().map((t) => t.toString());
    const whole = types.map((t) => WHOLE.test(t));
    return {
      columns: reader.columnNames().map((name, i) => ({ name, numeric: NUMERIC.test(types[i] ?? '') })),
      rows: inUtc(DuckDBTimestampTZValue, () => reader.getRowsJson()).map((row) =>
        row.map((v, i) => (whole[i] ? exactNumber(v) : v)),
      ),
    };
  } catch (cause) {
    throw new QueryError(`DuckDB refused the query: ${reasonOf(cause)}`, { cause });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
