import type { Manifest, ManifestFile } from '../../output/manifest.js';
import type { FaultPoint } from '../../output/sinks/sink.js';
import type { TableName } from '../../output/tables.js';
import { forTable } from '../table-failure.js';
import {
  addTableLoad,
  emptyLoads,
  filesByTable,
  type LoadFile,
  type ManifestFiles,
  type ManifestLoads,
  type TableLoaded,
} from '../warehouse.js';
import { batchKeys } from './batch-keys.js';
import type { OpenSpool } from './copy-spool.js';
import { type EncodeJob, encodeAhead } from './encode-ahead.js';
import { copyFileIntoBatch, typedCopyOf } from './postgres-copy-file.js';
import { postgresMergeBatch } from './postgres-dialect.js';
import type { SqlConnection } from './sql-connection.js';
import type { TypedCopy } from './typed-copy-rows.js';

type TableFiles = Array<[TableName, LoadFile[]]>;

const fileKeys = (list: readonly LoadFile[]) => list.map((f) => f.file.key);

/**
 * This session's batch table of every table the transaction loads, emptied,
 * and its typed COPY (undefined: its files are landed). The landing and batch
 * tables are temporary (the batch: the keyed table's columns, in its order):
 * transient rows never reach the WAL and the target keeps no working table
 * between loads; created in the transaction, after its schema changes. A batch's `_account` may be null until the account is filled
 * in (account-fill.ts: rows of files written before `_account` was).
 */
async function prepareBatches(db: SqlConnection, tables: TableFiles): Promise<Map<TableName, TypedCopy | undefined>> {
  await db.exec('CREATE TEMP TABLE IF NOT EXISTS helpdesk_landing (line text)');
  const typed = new Map<TableName, TypedCopy | undefined>();
  for (const [table, list] of tables) {
    await db.exec(`CREATE TEMP TABLE IF NOT EXISTS ${table}_batch (LIKE ${table})`);
    await db.exec(`ALTER TABLE pg_temp.${table}_batch ALTER COLUMN _account DROP NOT NULL`);
    await db.exec(`TRUNCATE ${table}_batch`);
    typed.set(table, await forTable(table, fileKeys(list), () => typedCopyOf(db, table)));
  }
  return typed;
}

/**
 * The recipe's statements (postgres-dialect.ts), table by table: each file
 * copied into the batch on its own (postgres-copy-file.ts: typed in Node where
 * it can be, else landed and typed by the recipe's helpdesk_land), so that the
 * lines it refuses are counted against the manifest that lists it, then the
 * batch merged once for all the transaction's files (and appended to `_raw`
 * where the load keeps it).
 *
 * The typed files are encoded ahead (encode-ahead.ts) into spools on disk, in
 * the order they are copied: while the server merges one table, which is most
 * of its work, Node encodes the next table's files, and their COPY then only
 * streams bytes. One connection, one transaction: the rows reach the server in
 * the order they always did. Encoding, Node sees each row's key (batch-keys.ts):
 * a batch whose keys are all distinct is merged without ranking them.
 */
export async function loadTables(
  db: SqlConnection,
  manifests: readonly Manifest[],
  files: ManifestFiles,
  hooks: {
    onTable: TableLoaded;
    fault: FaultPoint;
    openSpool: OpenSpool;
    /** Whether each batch is appended to `<table>_raw` too (raw-tables.ts). */
    raw: boolean;
    /** The statement that gives rows naming no account theirs (account-fill.ts), when the table's files need it. */
    fill: (table: TableName) => string | undefined;
  },
): Promise<ManifestLoads> {
  const loads = emptyLoads(manifests);
  const tables = filesByTable(manifests);
  const typedOf = await prepareBatches(db, tables);
  const read = (file: ManifestFile) => () => files.lineBatches(file);
  const keysOf = new Map(tables.map(([table]) => [table, batchKeys()]));
  const jobs = tables.flatMap(([table, list]): EncodeJob[] => {
    const typed = typedOf.get(table);
    return typed ? list.map(({ file }) => ({ read: read(file), typed, keys: keysOf.get(table) })) : [];
  });
  const ahead = encodeAhead(jobs, hooks.openSpool);
  try {
    for (const [table, list] of tables) {
      const typed = typedOf.get(table);
      const keys = keysOf.get(table)!;
      const total = { rows: 0, errors: 0 };
      for (const { runId, file } of list) {
        const load = await forTable(table, [file.key], async () =>
          copyFileIntoBatch(db, table, read(file), typed && { typed, encoded: await ahead.next() }),
        );
        await hooks.fault('file-staged');
        if (load.landed) keys.letGo();
        addTableLoad(loads, runId, table, load);
        total.rows += load.rows;
        total.errors += load.errors;
      }
      const fill = hooks.fill(table);
      if (fill) await forTable(table, fileKeys(list), () => db.exec(fill));
      // Node saw the keys before their account was filled in: let the merge rank them.
      const merge = postgresMergeBatch(table, { uniqueKeys: keys.unique && fill === undefined }, { raw: hooks.raw });
      keys.letGo();
      await forTable(table, fileKeys(list), () => db.exec(merge));
      hooks.onTable(table, total);
      await hooks.fault('table-merged');
    }
  } finally {
    await ahead.stop();
  }
  return loads;
}
