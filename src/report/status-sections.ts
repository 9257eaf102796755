import { formatDuration } from '../format-duration.js';
import { groupFailures } from '../sync/group-failures.js';
import { esc, num } from './html.js';
import { completenessByStream, latestBackfill, type RunView, rowsOf, type StatusInput } from './status-view.js';
import { completenessSparkline, progressBar, trafficChart } from './svg-charts.js';

const pill = (outcome: string) => `<span class="pill ${esc(outcome)}">${esc(outcome)}</span>`;
const utc = (iso: string | Date) => esc(`${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
const card = (title: string, body: string, field: string) =>
  `<section class="card" data-card="${field}"><h2>${esc(title)}</h2>${body}</section>`;

/**
 * The streams a run failed, each with its reason (the error's code; its message on hover and
 * in the run's summary): what a `partial` outcome means. Nothing for a run without any.
 */
function failedStreams(run: RunView, tag: 'p' | 'div'): string {
  const failures = groupFailures(run.summary);
  if (failures.length === 0) return '';
  const items = failures.map(
    (f) =>
      `<span data-failed="${esc(f.streams.join(','))}" title="${esc(f.message)}">${esc(f.streams.join(', '))} (${esc(f.code)})</span>`,
  );
  return `<${tag} class="failed" data-field="failed-streams">failed: ${items.join(', ')}</${tag}>`;
}

/** The four answers a person comes for: how the last run went, when the next is, is anything missing, the backfill. */
export function overviewCards(input: StatusInput, runs: readonly RunView[]): string {
  const last = runs[0];
  const lastBody = last
    ? `<p>${pill(last.outcome)}</p><p>started ${utc(last.started_at)}${last.duration_ms !== undefined ? `, took ${esc(formatDuration(last.duration_ms))}` : ''}</p>${failedStreams(last, 'p')}`
    : '<p>no run yet</p>';
  const live = input.live
    ? `<p class="live">running now: ${esc(formatDuration(input.live.elapsed_ms))}, ${num(input.live.requests)} requests</p>`
    : '';
  const next = input.schedule?.next
    ? `<p data-field="next-run">${utc(input.schedule.next)}</p><p class="note">schedule.sync <code>${esc(input.schedule.expression)}</code> (${esc(input.schedule.timezone)})</p>`
    : '<p data-field="next-run">not scheduled: no <code>schedule.sync</code> in the config</p>';
  const figures = completenessByStream(runs);
  const incomplete = figures.filter((f) => f.latest.unexplained > 0);
  const complete =
    figures.length === 0
      ? '<p>not measured yet</p>'
      : incomplete.length === 0
        ? `<p>${pill('complete')}</p><p>all ${figures.length} streams: nothing missing</p>`
        : `<p>${pill('incomplete')}</p><p>${incomplete.map((f) => `${esc(f.latest.stream)}: ${num(f.latest.unexplained)} missing`).join(', ')}</p>`;
  const b = latestBackfill(runs, input.live);
  const backfill = b
    ? `<p>${num(b.backfill.done)} of ${num(b.backfill.total)} conversations read</p>${progressBar(b.backfill.done, b.backfill.total)}<p>${b.backfill.status === 'complete' ? 'complete' : b.backfill.eta_ms !== undefined ? `about ${esc(formatDuration(b.backfill.eta_ms))} left` : 'time left not known yet'}</p>`
    : '<p>no recent-first backfill</p>';
  return `<div class="cards">${card('Last run', lastBody + live, 'last-run')}${card('Next run', next, 'next-run')}${card('Completeness', complete, 'completeness')}${card('Backfill', backfill, 'backfill')}</div>`;
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

/** Per stream: what the API says exists against what the state holds, and how that went over the last runs. */
export function completenessTable(runs: readonly RunView[]): string {
  const figures = completenessByStream(runs);
  if (figures.length === 0) return '<p>No run has measured completeness yet.</p>';
  const rows = figures.map(({ latest: f, history }) => {
    const explained = f.explained.map((e) => `${num(e.count)} ${esc(e.reason)}`).join(', ') || '–';
    return (
      `<tr data-stream="${esc(f.stream)}"><td>${esc(f.stream)}</td><td class="n" data-field="expected">${num(f.expected)}</td>` +
      `<td class="n" data-field="live">${num(f.live)}</td><td>${explained}</td>` +
      `<td class="n" data-field="unexplained">${num(f.unexplained)}</td>` +
      `<td>${f.unexplained > 0 ? pill('incomplete') : pill('complete')}</td>` +
      `<td>${completenessSparkline(history.map((h) => Math.max(0, h.unexplained)))}</td></tr>`
    );
  });
  return (
    '<table class="completeness"><thead><tr><th>stream</th><th>expected (API)</th><th>live (state)</th><th>explained</th>' +
    `<th>unexplained</th><th></th><th>history (unexplained per run)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/** The newest run's requests per rate window against the limit. */
export function trafficSection(input: StatusInput): string {
  const run = input.runs.find((r) => r.traffic && r.traffic.windows.length > 0);
  if (!run?.traffic) return '<p>No run has recorded its requests per window yet.</p>';
  const t = run.traffic;
  const total = t.windows.reduce((n, w) => n + w.requests, 0);
  const limited = t.windows.reduce((n, w) => n + w.rate_limited, 0);
  return (
    `<p data-run="${esc(run.run_id)}">Run <code>${esc(run.run_id)}</code>: <span data-field="traffic-requests">${num(total)}</span> requests in ` +
    `${num(t.windows.length)} window${t.windows.length === 1 ? '' : 's'} of ${num(t.window_ms / 1000)} s (${esc(t.window_source)}), ` +
    `the run's share ${num(t.limit_per_window)} per window; ${num(limited)} answered 429.</p>${trafficChart(t)}`
  );
}
