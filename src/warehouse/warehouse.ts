import { LoadError } from '../errors.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import type { FaultPoint } from '../output/sinks/sink.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import type { ManifestLoad, TableLoad } from './bookkeeping.js';
import type { SchemaReader } from './evolution/schema-contract.js';
import type { PipelineRecord, PipelineStatement } from './pipeline.js';

/** The files of the manifests, as a warehouse reads them: each checked against its manifest. */
export interface ManifestFiles {
  /**
   * A file on this machine, checked against the manifest's size and sha256: the
   * file itself for a local destination (read in place), else a copy in a private
   * temporary directory. Never written to.
   */
  localFile(file: ManifestFile): Promise<string>;
  /**
   * A file's non-empty lines, decompressed, in batches (one await per batch, not
   * per line); the size and sha256 are checked when the last batch has been read.
   */
  lineBatches(file: ManifestFile): AsyncIterable<string[]>;
}

/** Told as each table of a manifest is merged, before the commit (progress only). */
export type TableLoaded = (table: TableName, load: TableLoad) => void;

/** What a transaction's load is told besides its manifests' files. */
export interface ManifestHooks {
  onTable: TableLoaded;
  fault: FaultPoint;
  /** The pipeline bookkeeping (helpdesk_pipelines) of the manifests that have some, by run_id, run before COMMIT. */
  pipelines?: ReadonlyMap<string, PipelineStatement>;
  /** Statements run first in the transaction (schema evolution's ALTERs). */
  before?: readonly string[];
  /** Whether each table's batch is appended to `<table>_raw` too (load.keep_raw, raw-tables.ts). @default false */
  raw?: boolean;
  /** History mode: the statements that bring `<table>_history` up to the table's batch, for the tables it covers. */
  history?: (table: TableName) => readonly string[] | undefined;
  /**
   * The account of a manifest's rows, for files whose rows may not name it
   * (account-fill.ts). @default the manifest's `account`
   */
  accountOf?: (manifest: Manifest) => string | null;
}

/** What each manifest of a transaction got, by run_id, in the manifests' order. */
export type ManifestLoads = Map<string, ManifestLoad>;

/**
 * A database `load` writes into. Each implementation lands the files in a
 * temporary batch and merges it with the statements the project prints for its
 * dialect, keeps the lines a table refuses in
 * `helpdesk_load_errors`, and records each manifest in the ledger in the same
 * transaction as its rows (manifest-transaction.ts, written once for all). One
 * transaction may hold several manifests: their files are landed and merged
 * together, which gives the same rows as merging them one by one in order.
 */
export interface Warehouse {
  /** For messages: the target without secrets. */
  readonly describe: string;
  /**
   * Creates the keyed tables, helpers and the bookkeeping tables when absent
   * (idempotent), the `_raw` tables too where the load keeps them (`raw`), and
   * drops the empty `<table>_batch` working tables earlier versions left.
   */
  setup(options: { raw: boolean }): Promise<void>;
  /** run_ids of the manifests loaded so far. */
  loadedRuns(): Promise<Set<string>>;
  /** The pipelines whose manifests the warehouse holds (helpdesk_pipelines). */
  pipelines(): Promise<PipelineRecord[]>;
  /**
   * Loads every data file of the manifests (one or more, in load order) and records
   * each manifest, all in one transaction: a crash or an error leaves none of them.
   * Lines a table refuses go to `helpdesk_load_errors` (inside the same
   * transaction) and do not fail the manifest.
   */
  loadManifests(manifests: readonly Manifest[], files: ManifestFiles, hooks: ManifestHooks): Promise<ManifestLoads>;
  /** Its catalog and a count, for the schema contract. */
  readonly schema: SchemaReader;
  /** Rows of the keyed table now (current rows, one per key). */
  currentRows(table: TableName): Promise<number>;
  close(): Promise<void>;
}

/** A data file to load, and the manifest that lists it (a manifest may list files an earlier crashed run wrote). */
export interface LoadFile {
  runId: string;
  file: ManifestFile;
}

/**
 * The data files of the manifests per output table, in table order, each table's
 * files in the manifests' order; a table this version does not know fails the load.
 */
export function filesByTable(manifests: readonly Manifest[]): Array<[TableName, LoadFile[]]> {
  const all = manifests.flatMap((m) => m.files.map((file) => ({ runId: m.run_id, file })));
  for (const { runId, file } of all) {
    if (!TABLE_NAMES.includes(file.table as TableName)) {
      throw new LoadError(`manifest ${runId} lists a file of table ${file.table}, which this version does not know`);
    }
  }
  return TABLE_NAMES.flatMap((table) => {
    const files = all.filter((f) => f.file.table === table);
    return files.length > 0 ? [[table, files] as [TableName, LoadFile[]]] : [];
  });
}

/** Empty loads for the manifests of a transaction, to be filled table by table. */
export function emptyLoads(manifests: readonly Manifest[]): ManifestLoads {
  return new Map(manifests.map((m) => [m.run_id, {}]));
}

/** Adds one table's rows and refused lines to those of one manifest. */
export function addTableLoad(loads: ManifestLoads, runId: string, table: TableName, load: TableLoad): void {
  const manifest = loads.get(runId);
  if (!manifest) throw new LoadError(`manifest ${runId} is not in this transaction`);
  const before = manifest[table] ?? { rows: 0, errors: 0 };
  manifest[table] = { rows: before.rows + load.rows, errors: before.errors + load.errors };
}
