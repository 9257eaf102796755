import { formatDuration } from '../format-duration.js';
import type { TableName } from '../output/tables.js';

/** Where a load is: what `load` draws on a TTY and logs as `load.progress` elsewhere. */
export interface LoadProgress {
  target: string;
  elapsed_ms: number;
  manifests_done: number;
  manifests_total: number;
  /** The manifest being loaded (the first, when a transaction holds several), and its last table merged. */
  run_id?: string;
  /** The last manifest of the transaction, when it holds several. */
  last_run_id?: string;
  table?: TableName;
  /** Rows merged so far by this load (committed or in the open transaction). */
  rows: number;
}

/** The live block: where the load stands, its target, and the manifest and table it is at. */
export function loadProgressLines(p: LoadProgress): string[] {
  const runs = p.last_run_id ? `${p.run_id} … ${p.last_run_id}` : p.run_id;
  const at = p.run_id ? [`  loading ${runs}${p.table ? `: ${p.table}` : ''}`] : [];
  return [loadFigures(p), `  into ${p.target}`, ...at];
}

/** One line: the figures, then the target. */
export function loadProgressLine(p: LoadProgress): string {
  return `${loadFigures(p)}  into ${p.target}`;
}

/** Time, manifests loaded of those pending, rows merged: first, so a narrow terminal cuts only the target. */
function loadFigures(p: LoadProgress): string {
  return `load  ${formatDuration(p.elapsed_ms)}  manifests loaded ${p.manifests_done} of ${p.manifests_total}  rows ${p.rows}`;
}
