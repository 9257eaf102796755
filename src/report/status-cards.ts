import { formatDuration } from '../format-duration.js';
import { groupFailures } from '../sync/summary/group-failures.js';
import { completenessWords } from './completeness-state.js';
import { esc, num } from './html.js';
import { type AccountFailure, isNewer, latestBackfill, type RunView, type StatusInput } from './status-view.js';
import { progressBar } from './svg-charts.js';

/** An outcome or state as a coloured word; `cls` when the word is not a class name (`more held`). */
export const pill = (word: string, cls: string = word) => `<span class="pill ${esc(cls)}">${esc(word)}</span>`;
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

/** What the overview cards read besides the runs: a sync running now, the schedule, who draws the page, the output, a failure the state holds no run of. */
export type CardsInput = Pick<StatusInput, 'live' | 'schedule' | 'drawnBy' | 'output'> & { failure?: AccountFailure };

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

/**
 * When schedule.sync fires next, on a page the daemon draws (its schedule is what runs). A page
 * `report --html` wrote is a copy: no daemon is known to run, so it names the schedule and claims
 * no next run.
 */
export function nextRunCard(input: CardsInput): string {
  const expression = input.schedule
    ? `schedule.sync <code>${esc(input.schedule.expression)}</code> (${esc(input.schedule.timezone)})`
    : '';
  if (input.drawnBy !== 'daemon') {
    const body = input.schedule
      ? `<p data-field="next-run">no daemon drew this page</p><p class="note">written by <code>report --html</code>; ${expression} runs only under <code>helpdesk-sync daemon</code></p>`
      : '<p data-field="next-run">no <code>schedule.sync</code> in the config</p><p class="note">written by <code>report --html</code></p>';
    return card('Schedule', body, 'next-run');
  }
  const next = input.schedule?.next
    ? `<p data-field="next-run">${utc(input.schedule.next)}</p><p class="note">${expression}</p>`
    : '<p data-field="next-run">not scheduled: no <code>schedule.sync</code> in the config</p>';
  return card('Next run', next, 'next-run');
}

function completenessCard(runs: readonly RunView[]): string {
  const words = completenessWords(runs);
  const body =
    words.state === 'unmeasured'
      ? `<p>${words.text}</p>`
      : `<p>${pill(words.label, words.state)}</p><p>${esc(words.text)}</p>`;
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

/** Where the runs' files are: the directory or bucket a person opens, and where each run's manifest is. */
function outputCard(output: string | undefined): string {
  if (output === undefined) return '';
  const body = `<p class="output" data-field="output"><code>${esc(output)}</code></p><p class="note">each run's files listed by <code>_manifests/&lt;run&gt;.json</code> there</p>`;
  return card('Output', body, 'output');
}

/**
 * The answers a person comes for: how the last run went, when the next is (left out where the page
 * says it once for every account), is anything missing, the backfill, where the output is.
 */
export function overviewCards(input: CardsInput, runs: readonly RunView[], options = { nextRun: true }): string {
  const next = options.nextRun ? nextRunCard(input) : '';
  return `<div class="cards">${lastRunCard(input, runs)}${next}${completenessCard(runs)}${backfillCard(runs, input.live)}${outputCard(input.output)}</div>`;
}
