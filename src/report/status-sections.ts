import { formatDuration } from '../format-duration.js';
import { groupFailures } from '../sync/group-failures.js';
import { esc, num } from './html.js';
import {
  type AccountFailure,
  completenessByStream,
  isNewer,
  latestBackfill,
  type RunView,
  rowsOf,
  runView,
  type StatusInput,
} from './status-view.js';
import { completenessSparkline, progressBar, trafficChart } from './svg-charts.js';

export const pill = (outcome: string) => `<span class="pill ${esc(outcome)}">${esc(outcome)}</span>`;
export const utc = (iso: string | Date) => esc(`${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
const card = (title: string, body: string, field: string) =>
  `<section class="card" data-card="${field}"><h2>${esc(title)}</h2>${body}</section>`;

/**
 * The streams a run failed, each with its reason (the error's code; its message on hover and
 * in the run's summary): what a `partial` outcome means. Nothing for a run without any.
 */
export function failedStreams(run: RunView, tag: 'p' | 'div'): string {
  const failures = groupFailures(run.summary);
  if (failures.length === 0) return '';
  const items = failures.map(
    (f) =>
      `<span data-failed="${esc(f.streams.join(','))}" title="${esc(f.message)}">${esc(f.streams.join(', '))} (${esc(f.code)})</span>`,
  );
  return `<${tag} class="failed" data-field="failed-streams">failed: ${items.join(', ')}</${tag}>`;
}

/** What the overview cards read besides the runs: a sync running now, the schedule, a failure the state holds no run of. */
export type CardsInput = Pick<StatusInput, 'live' | 'schedule'> & { failure?: AccountFailure };

/** How the last run went: its outcome, when, how long, what failed; a sync running now; a newer failure the daemon saw. */
function lastRunCard(input: CardsInput, runs: readonly RunView[]): string {
  const last = runs[0];
  const f = input.failure;
  const lastBody =
    f && isNewer(f, last)
      ? `<p>${pill('failed')}</p><p>at ${utc(f.at)}</p><p class="failure" data-field="failure" title="${esc(f.message)}">${esc(f.code)}: ${esc(f.message)}</p>`
      : last
        ? `<p>${pill(last.outcome)}</p><p>started ${utc(last.started_at)}${last.duration_ms !== undefined ? `, took ${esc(formatDuration(last.duration_ms))}` : ''}</p>${failedStreams(last, 'p')}`
        : '<p>no run yet</p>';
  const live = input.live
    ? `<p class="live">running now: ${esc(formatDuration(input.live.elapsed_ms))}, ${num(input.live.requests)} requests</p>`
    : '';
  return card('Last run', lastBody + live, 'last-run');
}

/** When schedule.sync fires next. */
export function nextRunCard(input: CardsInput): string {
  const next = input.schedule?.next
    ? `<p data-field="next-run">${utc(input.schedule.next)}</p><p class="note">schedule.sync <code>${esc(input.schedule.expression)}</code> (${esc(input.schedule.timezone)})</p>`
    : '<p data-field="next-run">not scheduled: no <code>schedule.sync</code> in the config</p>';
  return card('Next run', next, 'next-run');
}

/** Is anything missing: the streams with an unexplained shortfall at their latest figure, in a few words. */
export function completenessWords(runs: readonly RunView[]): {
  state: 'complete' | 'incomplete' | 'unmeasured';
  text: string;
} {
  const figures = completenessByStream(runs);
  const incomplete = figures.filter((f) => f.latest.unexplained > 0);
  if (figures.length === 0) return { state: 'unmeasured', text: 'not measured yet' };
  if (incomplete.length === 0) return { state: 'complete', text: `all ${figures.length} streams: nothing missing` };
  return {
    state: 'incomplete',
    text: incomplete.map((f) => `${f.latest.stream}: ${num(f.latest.unexplained)} missing`).join(', '),
  };
}

function completenessCard(runs: readonly RunView[]): string {
  const words = completenessWords(runs);
  const body =
    words.state === 'unmeasured' ? `<p>${words.text}</p>` : `<p>${pill(words.state)}</p><p>${esc(words.text)}</p>`;
  return card('Completeness', body, 'completeness');
}

/** Where the backfill stands, in words (undefined when there is none). */
export function backfillWords(
  runs: readonly RunView[],
  live?: StatusInput['live'],
): { done: number; total: number; text: string } | undefined {
  const b = latestBackfill(runs, live)?.backfill;
  if (!b) return undefined;
  const text =
    b.status === 'complete'
      ? 'complete'
      : b.eta_ms !== undefined
        ? `about ${formatDuration(b.eta_ms)} left`
        : 'time left not known yet';
  return { done: b.done, total: b.total, text };
}

function backfillCard(runs: readonly RunView[], live?: StatusInput['live']): string {
  const b = backfillWords(runs, live);
  const body = b
    ? `<p>${num(b.done)} of ${num(b.total)} conversations read</p>${progressBar(b.done, b.total)}<p>${esc(b.text)}</p>`
    : '<p>no recent-first backfill</p>';
  return card('Backfill', body, 'backfill');
}

/**
 * The answers a person comes for: how the last run went, when the next is (left out where the page
 * says it once for every account), is anything missing, the backfill.
 */
export function overviewCards(input: CardsInput, runs: readonly RunView[], options = { nextRun: true }): string {
  const next = options.nextRun ? nextRunCard(input) : '';
  return `<div class="cards">${lastRunCard(input, runs)}${next}${completenessCard(runs)}${backfillCard(runs, input.live)}</div>`;
}

/** One account's part of a page: the overview cards, its last run's traffic, completeness per stream, its last runs. */
export function accountBody(input: CardsInput & { runs: StatusInput['runs'] }, options: { nextRun: boolean }): string {
  const runs = input.runs.map(runView);
  return `${overviewCards(input, runs, options)}
<h3>Requests per rate window, last run</h3>${trafficSection(input.runs)}
<h3>Completeness per stream</h3>${completenessTable(runs)}
<h3>Last runs</h3>${runsTable(runs)}`;
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
export function trafficSection(runs: StatusInput['runs']): string {
  const run = runs.find((r) => r.traffic && r.traffic.windows.length > 0);
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
