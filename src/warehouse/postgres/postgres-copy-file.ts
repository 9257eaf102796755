import type { TableName } from '../../output/tables.js';
import { columnNames } from '../table-columns.js';
import type { EncodedFile } from './encode-ahead.js';
import { POSTGRES_COPY, postgresLand } from './postgres-dialect.js';
import type { SqlConnection } from './sql-connection.js';
import { type CopyColumn, type TypedCopy, typedCopy } from './typed-copy-rows.js';

/** Bytes gathered before a write to the COPY stream: few writes, bounded memory. */
const COPY_CHUNK = 256 * 1024;

/** The batches of lines as COPY data, chunks of about COPY_CHUNK characters, counting the lines. */
async function* copyChunks(
  batches: AsyncIterable<readonly string[]>,
  counted: { lines: number },
): AsyncGenerator<string> {
  let chunk = '';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    chunk += `${batch.join('\n')}\n`;
    counted.lines += batch.length;
    if (chunk.length >= COPY_CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/** Lines sent per INSERT into the landing table: few round trips, bounded memory. */
const LANDING_BATCH = 2000;
const LAND = 'INSERT INTO helpdesk_landing (line) SELECT unnest($1::text[])';

/** The COPY of the printed recipe (psql's client-side `\copy`), as the server's own `COPY … FROM STDIN`. */
const COPY_LANDING = POSTGRES_COPY.slice(1);

/** What one file gave its table: rows in the batch, lines refused (in helpdesk_load_errors). */
export interface FileCopied {
  rows: number;
  errors: number;
  /** Whether lines went through the landing path, typed by the server, not seen by Node. */
  landed: boolean;
}

/** The columns of this session's `<table>_batch` (the temporary one), in their order. */
export async function typedCopyOf(db: SqlConnection, table: TableName): Promise<TypedCopy | undefined> {
  if (!db.copyFrom) return undefined;
  const columns = await db.query<Record<string, unknown>>(
    'SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a ' +
      `WHERE a.attrelid = '${table}_batch'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
  );
  return typedCopy(
    `${table}_batch`,
    columns.map((c): CopyColumn => ({ name: String(c.name), type: String(c.type) })),
    columnNames(table).keys,
  );
}

/**
 * Copies lines into `helpdesk_landing` (what the printed recipe does with psql's
 * \copy), streamed through COPY FROM STDIN; a connection that cannot stream a
 * COPY (PGlite) inserts them in batches. Returns their count.
 */
async function landLines(db: SqlConnection, batches: AsyncIterable<readonly string[]>): Promise<number> {
  if (db.copyFrom) {
    const counted = { lines: 0 };
    await db.copyFrom(COPY_LANDING, copyChunks(batches, counted));
    return counted.lines;
  }
  let pending: string[] = [];
  let count = 0;
  for await (const batch of batches) {
    pending.push(...batch);
    if (pending.length >= LANDING_BATCH) {
      await db.query(LAND, [pending]);
      count += pending.length;
      pending = [];
    }
  }
  if (pending.length > 0) await db.query(LAND, [pending]);
  return count + pending.length;
}

/** Lands the lines and types them into the batch with helpdesk_land (bad lines to helpdesk_load_errors). */
async function landAndType(
  db: SqlConnection,
  table: TableName,
  batches: AsyncIterable<readonly string[]>,
): Promise<FileCopied> {
  const lines = await landLines(db, batches);
  if (lines === 0) return { rows: 0, errors: 0, landed: false };
  const [moved] = await db.query(postgresLand(table));
  // helpdesk_land moved every line it could; the others are in helpdesk_load_errors.
  const rows = Number(moved?.helpdesk_land ?? 0);
  return { rows, errors: lines - rows, landed: true };
}

/** The lines the typed COPY cannot take, read again from the file. */
async function* leftOver(batches: AsyncIterable<readonly string[]>, typed: TypedCopy): AsyncGenerator<string[]> {
  for await (const batch of batches) yield batch.filter((line) => typed.encodeLine(line) === undefined);
}

/** A value the server refused (SQLSTATE class 22, data exception): the landing path keeps it as an error row. */
const refusedData = (error: unknown) => /^22/.test(String((error as { code?: unknown })?.code ?? ''));

/** A file's rows as typed COPY rows (encode-ahead.ts), and the typed COPY they were encoded for. */
export interface TypedFile {
  typed: TypedCopy;
  encoded: EncodedFile;
}

/**
 * The typed COPY of one file's encoded rows into the batch, in a savepoint.
 * Lines the encoding left out (rare: the sync's normalizer types every value)
 * are read again from the file after the COPY, through the landing path. If
 * the server refuses a value, the savepoint is rolled back and the whole file
 * goes through the landing path, which records the refused lines in
 * helpdesk_load_errors as it always has.
 */
async function copyTyped(
  db: SqlConnection,
  copyFrom: NonNullable<SqlConnection['copyFrom']>,
  table: TableName,
  { typed, encoded }: TypedFile,
  read: () => AsyncIterable<readonly string[]>,
): Promise<FileCopied> {
  await db.exec('SAVEPOINT helpdesk_file');
  try {
    await copyFrom(typed.sql, encoded.spool.chunks());
  } catch (error) {
    if (!refusedData(error)) throw error;
    await db.exec('ROLLBACK TO SAVEPOINT helpdesk_file');
    await db.exec('RELEASE SAVEPOINT helpdesk_file');
    return landAndType(db, table, read());
  } finally {
    await encoded.spool.close();
  }
  await db.exec('RELEASE SAVEPOINT helpdesk_file');
  if (encoded.leftOut === 0) return { rows: encoded.rows, errors: 0, landed: false };
  const landed = await landAndType(db, table, leftOver(read(), typed));
  return { rows: encoded.rows + landed.rows, errors: landed.errors, landed: true };
}

/**
 * One file's lines into `<table>_batch`: rows typed in Node (typed-copy-rows.ts,
 * encoded ahead by encode-ahead.ts) copied straight into the batch where the
 * connection streams COPY and the table's types allow, else landed as text and
 * typed by `helpdesk_land`, the printed recipe's way. Both give the same rows
 * and the same refused lines.
 */
export async function copyFileIntoBatch(
  db: SqlConnection,
  table: TableName,
  read: () => AsyncIterable<readonly string[]>,
  typed: TypedFile | undefined,
): Promise<FileCopied> {
  if (typed && db.copyFrom) return copyTyped(db, db.copyFrom.bind(db), table, typed, read);
  await typed?.encoded.spool.close();
  return landAndType(db, table, read());
}
