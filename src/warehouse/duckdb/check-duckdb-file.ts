import { open, stat } from 'node:fs/promises';
import { LoadTargetError } from '../../errors.js';
import { explainPathError } from '../../path-problem.js';

/** The file behind the open database; null when DuckDB opened it in memory. */
export const FILE_OF_DATABASE = 'SELECT path FROM duckdb_databases() WHERE database_name = current_database()';

/** A DuckDB database file carries "DUCK" at byte 8 of its first header. */
const DUCKDB_MAGIC = 'DUCK';

/**
 * Refuses a path DuckDB would not keep as a database file. DuckDB opens an
 * existing file it does not recognise (a JSON or CSV file) as an empty in-memory
 * database: a load would "succeed" and keep nothing. A path that does not exist
 * yet is fine (DuckDB creates the database).
 */
export async function checkDuckdbFile(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new LoadTargetError(`cannot use ${path} as a DuckDB database: ${explainPathError(error, path)}`, {
      cause: error,
    });
  }
  if (info.isDirectory()) throw new LoadTargetError(`${path} is a directory, not a DuckDB database file`);
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    if (bytesRead === 12 && head.subarray(8, 12).toString('latin1') === DUCKDB_MAGIC) return;
  } finally {
    await handle.close();
  }
  throw new LoadTargetError(
    `${path} exists and is not a DuckDB database (${info.size} bytes of something else): DuckDB would open it as an ` +
      'empty in-memory database and keep nothing. Name a new file or an existing DuckDB database',
  );
}
