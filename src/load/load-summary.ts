import type { LoadTargetOrigin } from '../config/load-target.js';
import { formatDuration } from '../format-duration.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';

export interface TableLoadCounts {
  /** Rows merged in by this load (every version, tombstones included). */
  rows: number;
  /** Current rows of the table when the load ended (one per key). */
  current: number;
  /** Lines the table refused in this load, kept in helpdesk_load_errors. */
  errors: number;
}

/** What `load` prints and logs. */
export interface LoadSummary {
  /** The target, without secrets. */
  target: string;
  /** Where the target came from: `--into`, `load.into`, or the config's default beside the state. */
  target_origin: LoadTargetOrigin;
  /** `failed`: a manifest could not be loaded (nothing of it is; later ones wait for it). */
  status: 'succeeded' | 'failed' | 'interrupted';
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** Manifests this load loaded, and those found loaded already. */
  manifests_loaded: number;
  manifests_loaded_before: number;
  /** Manifests not loaded yet when the load ended (0 when it succeeded). */
  manifests_pending: number;
  tables: Record<TableName, TableLoadCounts>;
  failure?: { run_id: string; code: string; message: string };
}

/** How a summary says where its target came from. */
export const ORIGIN_WORDS: Record<LoadTargetOrigin, string> = {
  '--into': 'from --into',
  'load.into': 'from load.into',
  default: 'default: beside the state',
};

export function emptyTableCounts(): Record<TableName, TableLoadCounts> {
  return Object.fromEntries(TABLE_NAMES.map((t) => [t, { rows: 0, current: 0, errors: 0 }])) as Record<
    TableName,
    TableLoadCounts
  >;
}

/** The summary as text for stdout: one line, then a row per table that has rows. */
export function formatLoadSummary(s: LoadSummary): string {
  const lines = [
    `load into ${s.target} (${ORIGIN_WORDS[s.target_origin]}) ${s.status} in ${formatDuration(s.duration_ms)}: ` +
      `${s.manifests_loaded} manifest${s.manifests_loaded === 1 ? '' : 's'} loaded` +
      `, ${s.manifests_loaded_before} loaded before` +
      (s.manifests_pending > 0 ? `, ${s.manifests_pending} still to load` : ''),
  ];
  const tables = Object.entries(s.tables).filter(([, c]) => c.rows + c.current + c.errors > 0);
  if (tables.length > 0) {
    const width = Math.max(5, ...tables.map(([t]) => t.length));
    lines.push(
      `  ${'table'.padEnd(width)}  ${'loaded'.padStart(9)}  ${'current'.padStart(9)}  ${'errors'.padStart(7)}`,
    );
    for (const [table, c] of tables) {
      lines.push(
        `  ${table.padEnd(width)}  ${String(c.rows).padStart(9)}  ${String(c.current).padStart(9)}  ${String(c.errors).padStart(7)}`,
      );
    }
  }
  if (Object.values(s.tables).some((c) => c.errors > 0)) {
    lines.push('  refused lines are in helpdesk_load_errors, with the reason');
  }
  if (s.failure) lines.push(`  manifest ${s.failure.run_id} not loaded [${s.failure.code}]: ${s.failure.message}`);
  return lines.join('\n');
}
