import { formatSummary } from './format-summary.js';
import type { AccountOutcome } from './sync-accounts.js';

/** `accounts: acme succeeded, globex partial, initech failed (API_UNAUTHORIZED)`: one line for every account. */
export function accountsLine(outcomes: readonly AccountOutcome[]): string {
  const each = outcomes.map((o) => `${o.account} ${o.status}${o.failure ? ` (${o.failure.code})` : ''}`);
  return `accounts: ${each.join(', ')}`;
}

/**
 * What `sync` prints for several accounts: each account's own summary under
 * its name (a failed account: why), then one line with every account's
 * outcome, and what a partial outcome means.
 */
export function formatAccountsSummary(outcomes: readonly AccountOutcome[]): string {
  const blocks = outcomes.map((o) => {
    if (o.result) {
      const summary = formatSummary(o.result.summary, o.result.manifestKey);
      return [`account ${o.account}`, ...summary.split('\n').map((l) => `  ${l}`)].join('\n');
    }
    const f = o.failure;
    return `account ${o.account} failed${f ? ` (${f.code}): ${f.message}` : ''}; the other accounts ran; the next run retries it`;
  });
  const lines = [...blocks, accountsLine(outcomes)];
  const ok = outcomes.every((o) => o.status === 'succeeded' || o.status === 'interrupted');
  if (!ok && outcomes.some((o) => o.status !== 'failed')) {
    lines.push('partial: the accounts that could committed; the others failed or ended partial (above)');
  }
  return lines.join('\n');
}
