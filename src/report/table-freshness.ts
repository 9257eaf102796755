import { CATALOG_TABLES, streamOfTable, type TableName } from '../catalog/catalog.js';
import { formatDuration } from '../format-duration.js';
import { esc, num } from './html.js';
import type { RunView } from './status-view.js';

/** When something happened, and in which run. */
export interface RunMoment {
  run_id: string;
  /** The run's end (its summary's `finished_at`). */
  at: string;
}

/** How fresh one table is, as far as the runs the state keeps tell. */
export interface TableFreshness {
  table: TableName;
  /**
   * The newest run that wrote rows to it (tombstones included): its rows' `_synced_at` lie
   * within that run, at its end at the latest. Absent: no kept run wrote any.
   */
  newest?: RunMoment;
  /**
   * The newest run that read the table's stream to its end (the stream has a completeness figure
   * in it): the table was current then, even when nothing had changed. Absent: none did.
   */
  read?: RunMoment;
}

/**
 * The freshness of every table whose stream a kept run selected, in catalog order, from the run
 * summaries alone (no output file is read, so the page costs nothing and works on a state in S3).
 */
export function tableFreshness(runs: readonly RunView[]): TableFreshness[] {
  const selected = new Set(runs.flatMap((r) => r.summary?.streams ?? []));
  const out: TableFreshness[] = [];
  for (const { name: table } of CATALOG_TABLES) {
    const stream = streamOfTable(table).name;
    if (!selected.has(stream)) continue;
    const moment = (run: RunView | undefined) =>
      run?.summary ? { run_id: run.run_id, at: run.summary.finished_at } : undefined;
    // Runs are newest first.
    const newest = moment(runs.find((r) => (r.summary?.tables[table]?.rows ?? 0) > 0));
    const read = moment(runs.find((r) => r.summary?.completeness.some((f) => f.stream === stream)));
    out.push({ table, ...(newest ? { newest } : {}), ...(read ? { read } : {}) });
  }
  return out;
}

/** How long ago, in a few characters: `42s ago`, `3m10s ago`, `5h02m ago`, `3d ago`. */
export function ageWords(at: string, now: Date): string {
  const ms = Math.max(0, now.getTime() - Date.parse(at));
  if (ms >= 2 * 86_400_000) return `${Math.floor(ms / 86_400_000)}d ago`;
  return `${formatDuration(ms)} ago`;
}

const momentCell = (field: string, m: RunMoment | undefined, now: Date, none: string) =>
  m
    ? `<td data-field="${field}" title="run ${esc(m.run_id)}"><span class="age">${esc(ageWords(m.at, now))}</span> <span class="note">${esc(`${m.at.slice(0, 16).replace('T', ' ')} UTC`)}</span></td>`
    : `<td data-field="${field}" class="note">${esc(none)}</td>`;

/** Per table: the age of its newest rows and of the last run that read it in full, with where those come from. */
export function freshnessTable(runs: readonly RunView[], now: Date): string {
  const rows = tableFreshness(runs);
  if (rows.length === 0) return '<p>No run has written a summary yet.</p>';
  const body = rows
    .map(
      (f) =>
        `<tr data-table="${esc(f.table)}"><td>${esc(f.table)}</td>` +
        momentCell('newest-row', f.newest, now, `none in the last ${num(runs.length)} runs`) +
        momentCell('read-in-full', f.read, now, `not in the last ${num(runs.length)} runs`) +
        '</tr>',
    )
    .join('');
  return (
    '<table class="freshness"><thead><tr><th>table</th><th>newest rows written</th><th>last read in full</th></tr></thead>' +
    `<tbody>${body}</tbody></table>` +
    `<p class="note" data-field="freshness-source">From the run summaries the state keeps (the last ${num(runs.length)} runs): ` +
    "a table's newest rows are those of the newest run that wrote any, their <code>_synced_at</code> within that run " +
    '(its end is shown); <em>last read in full</em> is the newest run that read its stream to the end, when the table was ' +
    'current even if nothing had changed.</p>'
  );
}
