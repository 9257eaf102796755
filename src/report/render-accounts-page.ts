import { formatDuration } from '../format-duration.js';
import { completenessWords } from './completeness-state.js';
import { esc, num } from './html.js';
import { drawnWords, generatedAt, pageShell } from './page-shell.js';
import { backfillWords, failedStreams, nextRunCard, pill, utc } from './status-cards.js';
import { accountBody } from './status-sections.js';
import { type AccountStatusInput, type AccountsStatusInput, isNewer, runView } from './status-view.js';

/** An account's anchor on the page: its name is a slug, so it is a valid id as it stands. */
const anchor = (name: string) => `account-${name}`;

/** The account's last word (a failure the state holds no run of, or its newest run) and when; a sync running now. */
function lastOutcome(account: AccountStatusInput): { word: string; cell: string; when: string } {
  const last = account.runs[0] && runView(account.runs[0]);
  const f = account.failure;
  const running = account.live
    ? `<div class="live">running now: ${esc(formatDuration(account.live.elapsed_ms))}</div>`
    : '';
  if (f && isNewer(f, last)) {
    const why = `<div class="failure" data-field="failure" title="${esc(f.message)}">${esc(f.code)}</div>`;
    return { word: 'failed', cell: `${pill('failed')}${why}${running}`, when: utc(f.at) };
  }
  if (!last) return { word: 'no run yet', cell: running || 'no run yet', when: '–' };
  return {
    word: last.outcome,
    cell: `${pill(last.outcome)}${failedStreams(last, 'div')}${running}`,
    when: utc(last.started_at),
  };
}

/** How many accounts ended each way, in the order a person reads them: `2 succeeded, 1 failed`. */
function outcomeCounts(accounts: readonly AccountStatusInput[]): string {
  const counts = new Map<string, number>();
  for (const account of accounts) {
    const { word } = lastOutcome(account);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const order = ['failed', 'partial', 'interrupted', 'crashed', 'running', 'succeeded', 'no run yet'];
  return [...counts]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([word, n]) => `${num(n)} ${esc(word)}`)
    .join(', ');
}

/** One row per account: its last outcome and when, completeness, backfill; its name links to its section. */
function accountsTable(accounts: readonly AccountStatusInput[]): string {
  const rows = accounts.map((account) => {
    const runs = account.runs.map(runView);
    const last = lastOutcome(account);
    const words = completenessWords(runs);
    const backfill = backfillWords(runs, account.live);
    return (
      `<tr data-account="${esc(account.name)}"><td><a href="#${esc(anchor(account.name))}">${esc(account.name)}</a></td>` +
      `<td data-field="outcome">${last.cell}</td><td data-field="when">${last.when}</td>` +
      `<td data-field="completeness">${words.state === 'unmeasured' ? '' : pill(words.label, words.state)} ${esc(words.text)}</td>` +
      `<td data-field="backfill">${backfill ? `${num(backfill.done)} of ${num(backfill.total)}, ${esc(backfill.text)}` : '–'}</td></tr>`
    );
  });
  return (
    '<table class="accounts"><thead><tr><th>account</th><th>last run</th><th>when</th><th>completeness</th>' +
    `<th>backfill</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/**
 * The status page of several accounts (the daemon's `/` and `report --html` of
 * a config that lists accounts): at the top, when the next sync is and a table
 * of every account's last outcome, each name a link to the account's section;
 * then one section per account, in the order of the config, with what the page
 * of one account shows (its last run, completeness, backfill, traffic chart and
 * runs). One long page and in-page links, no tabs: nothing to click to see a
 * failure, and it prints and searches whole.
 */
export function renderAccountsStatusPage(input: AccountsStatusInput): string {
  const sections = input.accounts.map(
    (account) =>
      `<section class="account" id="${esc(anchor(account.name))}" data-account="${esc(account.name)}">` +
      `<h2>${esc(account.name)}</h2><p class="api">API <code>${esc(account.source)}</code></p>` +
      `${accountBody({ ...account, generatedAt: input.generatedAt }, { nextRun: false })}</section>`,
  );
  return pageShell({
    title: 'helpdesk-sync status',
    subtitle: `${num(input.accounts.length)} accounts · ${drawnWords(input.drawnBy)} ${generatedAt(input.generatedAt)}`,
    main: `<div class="cards"><section class="card" data-card="accounts"><h2>Last runs</h2><p data-field="outcomes">${outcomeCounts(input.accounts)}</p><p class="note">the newest of each account, below</p></section>${nextRunCard(input)}</div>
<h3>Accounts</h3>${accountsTable(input.accounts)}
${sections.join('\n')}`,
  });
}
