import { esc } from './html.js';
import { drawnWords, generatedAt, pageShell } from './page-shell.js';
import { accountBody } from './status-sections.js';
import type { StatusInput } from './status-view.js';

export type { StatusInput } from './status-view.js';

/**
 * The status page of one account (the daemon's `/` and `report --html` of a
 * config without `accounts:`, `report --html --account NAME` of one that lists
 * them): the overview cards, the last run's requests per window, completeness
 * per stream and the last runs.
 */
export function renderStatusPage(input: StatusInput): string {
  const account = input.account === undefined ? '' : `account <strong>${esc(input.account)}</strong> · `;
  return pageShell({
    title: input.account === undefined ? 'helpdesk-sync status' : `helpdesk-sync status: ${input.account}`,
    subtitle: `${account}API <code>${esc(input.source)}</code> · ${drawnWords(input.drawnBy)} ${generatedAt(input.generatedAt)}`,
    main: accountBody(input, { nextRun: true }),
  });
}
