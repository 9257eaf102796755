import { LoadError } from '../errors.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import type { FaultPoint } from '../output/sinks/sink.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import type { OutputFiles } from './output-files.js';
import type { PipelineRecord, PipelineStatement } from './pipeline.js';

/** What one table got from one manifest: rows merged in, and lines the warehouse refused. */
export interface TableLoad {
  rows: number;
  errors: number;
}

export type ManifestLoad = Partial<Record<TableName, TableLoad>>;

/** Told as each table of a manifest is merged, before the commit (progress only). */
export type TableLoaded = (table: TableName, load: TableLoad) => void;

/** What a manifest's load is told besides its files. */
export interface ManifestHooks {
  onTable: TableLoaded;
  fault: FaultPoint;
  /** The pipeline bookkeeping of this manifest (helpdesk_pipelines), run before COMMIT. */
  pipeline?: PipelineStatement;
}

/**
 * A database `load` writes into. Each implementation runs the landing + merge
 * recipe the project prints for its dialect (src/output/load-recipe.ts), keeps the
 * lines a table refuses in `helpdesk_load_errors`, and records each manifest in a
 * ledger (LEDGER_DDL) in the same transaction as its rows.
 */
export interface Warehouse {
  /** For messages: the target without secrets. */
  readonly describe: string;
  /** Creates the tables, helpers and the ledger when absent (idempotent). */
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
  loadManifest(manifest: Manifest, files: OutputFiles, hooks: ManifestHooks): Promise<ManifestLoad>;
  /** Rows of the keyed table now (current rows, one per key). */
  currentRows(table: TableName): Promise<number>;
  close(): Promise<void>;
}

/**
 * The loader's ledger, the same text for DuckDB and PostgreSQL: every manifest
 * loaded, recorded in the transaction that loaded its rows, so a manifest is
 * loaded exactly once whatever stops a load.
 */
export const LEDGER_DDL = `-- helpdesk_loaded_manifests: every manifest loaded, recorded in the transaction that loaded its rows
CREATE TABLE IF NOT EXISTS helpdesk_loaded_manifests (
  run_id text PRIMARY KEY,
  files integer NOT NULL,
  row_count bigint NOT NULL,
  load_errors bigint NOT NULL,
  schema_version text NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now()
);`;

/** The ledger row of a loaded manifest, as statement parameters ($1 … $5). */
export const RECORD_MANIFEST =
  'INSERT INTO helpdesk_loaded_manifests (run_id, files, row_count, load_errors, schema_version) VALUES ($1, $2, $3, $4, $5)';

export function manifestLedgerValues(
  manifest: Manifest,
  loads: ManifestLoad,
): [string, number, number, number, string] {
  const all = Object.values(loads);
  const rows = all.reduce((n, l) => n + l.rows, 0);
  const errors = all.reduce((n, l) => n + l.errors, 0);
  return [manifest.run_id, manifest.files.length, rows, errors, manifest.schema_version];
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

/** helpdesk_pipelines rows as the drivers return them (numbers may come back as bigint or text). */
export function pipelineRecords(rows: Array<Record<string, unknown>>): PipelineRecord[] {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rows.map((r) => ({
    pipeline_id: Number(r.pipeline_id),
    base_url: text(r.source_base_url),
    organization_slug: text(r.organization_slug),
    organization_company: text(r.organization_company),
    destination: String(r.destination),
    privacy_policy: String(r.privacy_policy),
    privacy_key: text(r.privacy_key),
    schema_set: String(r.schema_set),
    first_run_id: String(r.first_run_id),
    last_run_id: String(r.last_run_id),
  }));
}
