import { TARGET_TITLES } from '../config/load-target.js';
import { formatDuration } from '../format-duration.js';
import { esc, num } from './html.js';
import { pill } from './status-cards.js';
import { ageWords } from './table-freshness.js';
import { lagSeconds, type TargetStatus } from './warehouse-status.js';

/** How far a target is behind: `up to date`, `3 manifests, 45m00s behind`, `2 manifests behind` (none known loaded). */
export function lagWords(target: TargetStatus): string {
  const { manifests } = target.lag;
  if (manifests === 0) return 'up to date';
  const seconds = lagSeconds(target.lag);
  const count = `${num(manifests)} manifest${manifests === 1 ? '' : 's'}`;
  return seconds === undefined ? `${count} behind` : `${count}, ${formatDuration(seconds * 1000)} behind`;
}

function lastLoadCells(target: TargetStatus, now: Date): string {
  const last = target.last;
  if (!last) {
    return (
      '<td data-field="outcome">never loaded</td><td data-field="when" class="note">–</td>' +
      '<td class="n" data-field="manifests">–</td><td class="n" data-field="rows">–</td>'
    );
  }
  const error = last.error
    ? `<div class="failure" data-field="load-error">${esc(last.error.code)}${last.error.run_id ? ` at manifest <code>${esc(last.error.run_id)}</code>` : ''}</div>`
    : '';
  return (
    `<td data-field="outcome">${pill(last.outcome)}${error}</td>` +
    `<td data-field="when"><span class="age">${esc(ageWords(last.finished_at, now))}</span> <span class="note">${esc(`${last.finished_at.slice(0, 16).replace('T', ' ')} UTC`)}</span></td>` +
    `<td class="n" data-field="manifests">${num(last.manifests_loaded)}</td><td class="n" data-field="rows">${num(last.rows)}</td>`
  );
}

/**
 * Per load target: its last load (when, manifests and rows, outcome and the error's code) and how
 * far it is behind the manifests the state committed. Read from the state and its load records,
 * never from the target: what a load that never ran leaves is said, with the command that runs one.
 */
export function warehouseSection(targets: readonly TargetStatus[] | undefined, now: Date): string {
  const never =
    `<p class="note" data-field="load-how"><code>helpdesk-sync load</code> loads the committed manifests into ${esc(TARGET_TITLES)} ` +
    '(<code>load:</code> in the config makes the daemon load after each sync).</p>';
  if (targets === undefined) return '<p>The load records could not be read.</p>';
  if (targets.length === 0) return `<p data-field="never-loaded">No load is recorded: never loaded.</p>${never}`;
  const rows = targets.map((t) => {
    const behind = pill(lagWords(t), t.lag.manifests === 0 ? 'succeeded' : 'partial');
    const newest = t.lag.newest_loaded
      ? ` <span class="note" data-field="newest-loaded">newest loaded <code>${esc(t.lag.newest_loaded.run_id)}</code></span>`
      : '';
    return (
      `<tr data-target="${esc(t.target)}"><td><code>${esc(t.target)}</code></td>${lastLoadCells(t, now)}` +
      `<td data-field="lag">${behind}${newest}</td></tr>`
    );
  });
  return (
    '<table class="warehouse"><thead><tr><th>target</th><th>last load</th><th>when</th><th>manifests</th><th>rows</th>' +
    `<th>behind the newest manifest</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    (targets.some((t) => !t.last) ? never : '') +
    '<p class="note" data-field="lag-source">From the load records kept beside the state: the target itself is not opened. ' +
    'Behind: manifests the state committed that no load has loaded yet, and the time from the newest loaded to the newest committed.</p>'
  );
}
