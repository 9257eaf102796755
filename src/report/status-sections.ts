import { formatDuration } from '../format-duration.js';
import { completenessUnit, describeDifference } from '../sync/summary/format-completeness.js';
import { figureState } from './completeness-state.js';
import { esc, num } from './html.js';
import { runsChart } from './runs-chart.js';
import { type CardsInput, failedStreams, overviewCards, pill, utc } from './status-cards.js';
import { completenessByStream, type RunView, rowsOf, runView, type StatusInput } from './status-view.js';
import { completenessHistory, HISTORY_RUNS } from './svg-charts.js';
import { freshnessTable } from './table-freshness.js';
import { overShareNote, trafficChart } from './traffic-chart.js';
import { warehouseSection } from './warehouse-section.js';

/**
 * One account's part of a page: the overview cards, its last run's traffic, its runs over time,
 * completeness per stream, the freshness of each table, its last runs.
 */
export function accountBody(
  input: CardsInput & Pick<StatusInput, 'runs' | 'warehouse'> & { generatedAt: Date },
  options: { nextRun: boolean },
): string {
  const runs = input.runs.map(runView);
  // Each section a heading and its body, in reading order: what the page shows of another part
  // is one more entry here, drawn from its own input.
  const sections: Array<[title: string, body: string]> = [
    ['Requests per rate window, last run', trafficSection(input.runs)],
    ['Runs over time', runsChart(runs)],
    ['Completeness per stream', completenessTable(runs)],
    ['Freshness per table', freshnessTable(runs, input.generatedAt)],
    ['Warehouse loads', warehouseSection(input.warehouse, input.generatedAt)],
    ['Last runs', runsTable(runs)],
  ];
  return `${overviewCards(input, runs, options)}
${sections.map(([title, body]) => `<h3>${esc(title)}</h3>${body}`).join('\n')}`;
}

/** The last runs: outcome, time, rows per table, requests, 429s, waits. */
export function runsTable(runs: readonly RunView[]): string {
  if (runs.length === 0) return '<p>No run is recorded in the state yet.</p>';
  const rows = runs.map((run) => {
    const s = run.summary;
    const cell = (field: string, value: string) => `<td class="n" data-field="${field}">${value}</td>`;
    const written = s ? rowsOf(s) : undefined;
    const tables = s
      ? Object.entries(s.tables)
          .filter(([, c]) => c.rows > 0)
          .map(([t, c]) => `<span data-table="${esc(t)}">${esc(t)} ${num(c.rows)}</span>`)
          .join(' · ')
      : '';
    return (
      `<tr data-run="${esc(run.run_id)}"><td><code>${esc(run.run_id)}</code><div class="tables">${tables}</div></td>` +
      `<td>${utc(run.started_at)}</td><td>${pill(run.outcome)}${failedStreams(run, 'div')}</td>` +
      cell('duration', run.duration_ms !== undefined ? esc(formatDuration(run.duration_ms)) : '–') +
      cell('rows', written ? num(written.rows) : '–') +
      cell('tombstones', written ? num(written.tombstones) : '–') +
      cell('requests', s ? num(s.requests.requests) : '–') +
      cell('rate-limited', s ? num(s.requests.rateLimited) : '–') +
      cell('waited', s ? esc(formatDuration(s.requests.waitedMs)) : '–') +
      '</tr>'
    );
  });
  return (
    '<table class="runs"><thead><tr><th>run</th><th>started</th><th>status</th><th>duration</th><th>rows written</th>' +
    `<th>tombstones</th><th>requests</th><th>429s</th><th>waited for budget</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/**
 * Per stream: what the API says exists against what the state holds, in the figure's unit
 * (threads for messages), the difference in words, its state (a stream holding more than the API
 * counts is `more held`, never `complete`), and its history over the last runs.
 */
export function completenessTable(runs: readonly RunView[]): string {
  const figures = completenessByStream(runs);
  if (figures.length === 0) return '<p>No run has measured completeness yet.</p>';
  const rows = figures.map(({ latest: f, history }) => {
    const { state, label } = figureState(f);
    return (
      `<tr data-stream="${esc(f.stream)}"><td>${esc(f.stream)}</td><td data-field="unit">${esc(completenessUnit(f.stream) ?? f.stream)}</td>` +
      `<td class="n" data-field="expected">${num(f.expected)}</td><td class="n" data-field="live">${num(f.live)}</td>` +
      `<td data-field="difference">${esc(describeDifference(f) || '–')}</td>` +
      `<td class="n" data-field="unexplained">${num(f.unexplained)}</td>` +
      `<td data-field="state">${pill(label, state)}</td><td>${completenessHistory(history)}</td></tr>`
    );
  });
  return (
    '<table class="completeness"><thead><tr><th>stream</th><th>counted in</th><th>expected (API)</th><th>live (state)</th>' +
    `<th>difference</th><th>unexplained</th><th></th><th>last ${HISTORY_RUNS} runs, oldest first</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    '<p class="note">explained: every difference has a reason the run observed; more held: the state holds more than the API ' +
    'counts (contacts are never tombstoned; a conversation kept while unlisted); incomplete: something is missing for no ' +
    'known reason, its number in the history cell.</p>'
  );
}

/** The newest run's requests per rate window against its share of each window. */
export function trafficSection(runs: StatusInput['runs']): string {
  const run = runs.find((r) => r.traffic && r.traffic.windows.length > 0);
  if (!run?.traffic) return '<p>No run has recorded its requests per window yet.</p>';
  const t = run.traffic;
  const total = t.windows.reduce((n, w) => n + w.requests, 0);
  const limited = t.windows.reduce((n, w) => n + w.rate_limited, 0);
  return (
    `<p data-run="${esc(run.run_id)}">Run <code>${esc(run.run_id)}</code>: <span data-field="traffic-requests">${num(total)}</span> requests in ` +
    `${num(t.windows.length)} window${t.windows.length === 1 ? '' : 's'} of ${num(t.window_ms / 1000)} s (${esc(t.window_source)}), ` +
    `the run's share ${num(t.limit_per_window)} per window; <span data-field="traffic-429s">${num(limited)}</span> answered 429.</p>${trafficChart(t)}${overShareNote(t)}`
  );
}
