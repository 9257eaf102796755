import { formatSummary } from '../summary/format-summary.js';
import type { AccountOutcome } from './sync-accounts.js';

const outcomeOf = (o: AccountOutcome) => `${o.account} ${o.status}${o.failure ? ` (${o.failure.code})` : ''}`;

/** `accounts: acme succeeded, globex partial, initech failed (API_UNAUTHORIZED)`: one line for every account (logs). */
export function accountsLine(outcomes: readonly AccountOutcome[]): string {
  return `accounts: ${outcomes.map(outcomeOf).join(', ')}`;
}

/**
 * The same, for a terminal: broken after a comma where the line would pass
 * `width` columns, never inside an account's words, the rest indented.
 */
export function accountsLines(outcomes: readonly AccountOutcome[], width = 80): string[] {
  const lines: string[] = [];
  let line = 'accounts:';
  outcomes.forEach((o, i) => {
    const part = `${outcomeOf(o)}${i < outcomes.length - 1 ? ',' : ''}`;
    if (line.trim() !== 'accounts:' && line.length + 1 + part.length > width) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${part}`;
  });
  return [...lines, line];
}

/** A failed account: its code on the heading, its message on a line of its own, what happens next. */
function failedBlock(o: AccountOutcome): string[] {
  const f = o.failure;
  return [
    `account ${o.account} failed${f ? ` (${f.code})` : ''}`,
    ...(f ? [`  ${f.message}`] : []),
    '  the other accounts ran; the next run retries this one',
  ];
}

/**
 * What `sync` prints for several accounts: each account's own summary under
 * its name (a failed account: why), a blank line between accounts, then every
 * account's outcome and what a partial or failed whole means. Written for an
 * 80-column terminal: no line of its own passes 80 columns but an account's
 * summary lines and an error's message, which are as long as they say.
 */
export function formatAccountsSummary(outcomes: readonly AccountOutcome[]): string {
  const blocks = outcomes.map((o) => {
    if (!o.result) return failedBlock(o).join('\n');
    const summary = formatSummary(o.result.summary, o.result.manifestKey, o.result.location);
    return [`account ${o.account}`, ...summary.split('\n').map((l) => `  ${l}`)].join('\n');
  });
  const lines = accountsLines(outcomes);
  const ok = outcomes.every((o) => o.status === 'succeeded' || o.status === 'interrupted');
  if (outcomes.every((o) => o.status === 'failed')) lines.push('failed: every account failed (above)');
  else if (!ok) lines.push('partial: some accounts failed or ended partial (above); the others committed');
  return [...blocks, lines.join('\n')].join('\n\n');
}
