import { formatDuration } from '../format-duration.js';
import type { TableName } from '../output/tables.js';

/** Where a load is: what `load` draws on a TTY and logs as `load.progress` elsewhere. */
export interface LoadProgress {
  target: string;
  elapsed_ms: number;
  manifests_done: number;
  manifests_total: number;
  /** The manifest being loaded, and its last table merged. */
  run_id?: string;
  table?: TableName;
  /** Rows merged so far by this load (committed or in the open transaction). */
  rows: number;
}

/** The live block: where the load stands, and the manifest and table it is at. */
export function loadProgressLines(p: LoadProgress): string[] {
  const at = p.run_id ? [`  loading ${p.run_id}${p.table ? `: ${p.table}` : ''}`] : [];
  return [loadProgressLine(p), ...at];
}

/** One line: the target, time, manifests loaded of those pending, rows merged. */
export function loadProgressLine(p: LoadProgress): string {
  return (
    `load into ${p.target}  ${formatDuration(p.elapsed_ms)}  manifests loaded ${p.manifests_done} of ${p.manifests_total}` +
    `  rows ${p.rows}`
  );
}
