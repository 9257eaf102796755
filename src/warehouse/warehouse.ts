import { LoadError } from '../errors.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import type { FaultPoint } from '../output/sinks/sink.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import type { ManifestLoad, TableLoad } from './bookkeeping.js';
import type { PipelineRecord, PipelineStatement } from './pipeline.js';
import type { SchemaReader } from './schema-contract.js';

/** The files of the manifests, as a warehouse reads them: each checked against its manifest. */
export interface ManifestFiles {
  /**
   * A file on this machine, checked against the manifest's size and sha256: the
   * file itself for a local destination (read in place), else a copy in a private
   * temporary directory. Never written to.
   */
  localFile(file: ManifestFile): Promise<string>;
  /** A file's lines, decompressed; the size and sha256 are checked when the last line has been read. */
  lines(file: ManifestFile): AsyncIterable<string>;
}

/** Told as each table of a manifest is merged, before the commit (progress only). */
export type TableLoaded = (table: TableName, load: TableLoad) => void;

/** What a manifest's load is told besides its files. */
export interface ManifestHooks {
  onTable: TableLoaded;
  fault: FaultPoint;
  /** The pipeline bookkeeping of this manifest (helpdesk_pipelines), run before COMMIT. */
  pipeline?: PipelineStatement;
  /** Statements run first in the transaction (schema evolution's ALTERs). */
  before?: readonly string[];
}

/**
 * A database `load` writes into. Each implementation runs the landing + merge
 * recipe the project prints for its dialect, keeps the lines a table refuses in
 * `helpdesk_load_errors`, and records each manifest in the ledger in the same
 * transaction as its rows (manifest-transaction.ts, written once for all).
 */
export interface Warehouse {
  /** For messages: the target without secrets. */
  readonly describe: string;
  /** Creates the tables, helpers and the bookkeeping tables when absent (idempotent). */
  setup(): Promise<void>;
  /** run_ids of the manifests loaded so far. */
  loadedRuns(): Promise<Set<string>>;
  /** The pipelines whose manifests the warehouse holds (helpdesk_pipelines). */
  pipelines(): Promise<PipelineRecord[]>;
  /**
   * Loads every data file of one manifest and records the manifest, all in one
   * transaction: a crash or an error leaves none of it. Lines a table refuses go to
   * `helpdesk_load_errors` (inside the same transaction) and do not fail the manifest.
   */
  loadManifest(manifest: Manifest, files: ManifestFiles, hooks: ManifestHooks): Promise<ManifestLoad>;
  /** Its catalog and a count, for the schema contract. */
  readonly schema: SchemaReader;
  /** Rows of the keyed table now (current rows, one per key). */
  currentRows(table: TableName): Promise<number>;
  close(): Promise<void>;
}

/** The data files of a manifest per output table, in table order; a table this version does not know fails the load. */
export function filesByTable(manifest: Manifest): Array<[TableName, ManifestFile[]]> {
  for (const file of manifest.files) {
    if (!TABLE_NAMES.includes(file.table as TableName)) {
      throw new LoadError(
        `manifest ${manifest.run_id} lists a file of table ${file.table}, which this version does not know`,
      );
    }
  }
  return TABLE_NAMES.flatMap((table) => {
    const files = manifest.files.filter((f) => f.table === table);
    return files.length > 0 ? [[table, files] as [TableName, ManifestFile[]]] : [];
  });
}
