import type { Manifest } from '../output/manifest.js';
import type { TableName } from '../output/tables.js';

/**
 * The warehouse's own tables besides the data, the same text for DuckDB and
 * PostgreSQL (and printed in PostgreSQL's script): what could not be loaded, and
 * what was.
 */

/** Lines that could not become rows, with the reason (the same text runs on DuckDB, where `load` keeps them too). */
export const LOAD_ERRORS_DDL = `-- helpdesk_load_errors: lines that could not become rows, with the reason
CREATE TABLE IF NOT EXISTS helpdesk_load_errors (
  table_name text NOT NULL,
  line text,
  error text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);`;

/**
 * The loader's ledger: every manifest loaded, recorded in the transaction that
 * loaded its rows, so a manifest is loaded exactly once whatever stops a load.
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

/** What one table got from one manifest: rows merged in, and lines the warehouse refused. */
export interface TableLoad {
  rows: number;
  errors: number;
}

export type ManifestLoad = Partial<Record<TableName, TableLoad>>;

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
