import { formatDuration } from '../../format-duration.js';
import { createLiveProgress, type LiveProgress } from '../../live-progress.js';
import { knownWaitMs, type ProgressReporterOptions, progressLine, timeLeft } from '../progress.js';
import type { SyncProgress } from '../sync-types.js';

/** The progress of several accounts' syncs, in the order the config lists them. */
export interface AccountsProgress {
  accounts: Array<{ account: string; progress?: SyncProgress }>;
}

/** What an account's sync does now, in a few words: its running stream and the time left, or what holds it. */
export function accountNow(p: SyncProgress): string {
  const wait = knownWaitMs(p);
  if (p.paused_ms_left) return `paused by a 429, ~${formatDuration(wait)}`;
  if (p.waiting_for_window) return `waiting for the rate window${wait ? `, ~${formatDuration(wait)}` : ''}`;
  const running = p.streams.find((s) => s.status === 'running');
  if (running) return `${running.stream} ${timeLeft(running, p)}`;
  if (p.streams.every((s) => s.status !== 'pending')) return 'finishing';
  return '-';
}

/**
 * The live block of several accounts: one line per account under named
 * columns (rows, requests, streams ended of all, what it does now: a 429 pause
 * or a wait for the rate window shows there), then each running backfill. One
 * line per account, not each account's whole block: the block stays shorter
 * than a terminal for a dozen accounts, where a block per account would scroll
 * off and could not be redrawn in place. With names up to 9 characters a line
 * fits 80 columns whatever stream runs; a longer one is cut by the display.
 */
export function accountsProgressLines(p: AccountsProgress): string[] {
  const width = Math.max(7, ...p.accounts.map((a) => a.account.length));
  const elapsed = Math.max(0, ...p.accounts.map((a) => a.progress?.elapsed_ms ?? 0));
  const cells = (account: string, rows: string, requests: string, streams: string, now: string) =>
    `  ${account.padEnd(width)}  ${rows.padStart(8)}  ${requests.padStart(8)}  ${streams.padStart(7)}  ${now}`;
  const lines = [
    `sync of ${p.accounts.length} accounts  ${formatDuration(elapsed)}`,
    cells('account', 'rows', 'requests', 'streams', 'now'),
  ];
  for (const { account, progress } of p.accounts) {
    if (!progress) {
      lines.push(cells(account, '-', '-', '-', 'starting'));
      continue;
    }
    const rows = progress.streams.reduce((n, s) => n + s.rows, 0);
    const done = progress.streams.filter((s) => s.status !== 'pending' && s.status !== 'running').length;
    lines.push(
      cells(
        account,
        String(rows),
        String(progress.requests),
        `${done}/${progress.streams.length}`,
        accountNow(progress),
      ),
    );
  }
  for (const { account, progress } of p.accounts) {
    const b = progress?.backfill;
    if (!b || b.status === 'complete') continue;
    const left = b.eta_ms === undefined ? 'time left ?' : `~${formatDuration(b.eta_ms)} left`;
    lines.push(`  backfill of ${account}: ${b.done} of ${b.total} conversations read, ${left}`);
  }
  return lines;
}

/** One line per interval where there is no terminal: each account's line, joined. */
export function accountsProgressLine(p: AccountsProgress): string {
  return p.accounts
    .map(({ account, progress }) => `${account}: ${progress ? progressLine(progress) : 'starting'}`)
    .join(' | ');
}

/**
 * The progress of several accounts as one live display: `update(account, p)`
 * keeps each account's latest progress and redraws the whole block.
 */
export function createAccountsProgressReporter(
  accounts: readonly string[],
  options: ProgressReporterOptions,
): { update(account: string, progress: SyncProgress): void; done(): void } {
  const state: AccountsProgress = { accounts: accounts.map((account) => ({ account })) };
  const live: LiveProgress<AccountsProgress> = createLiveProgress(options, {
    render: accountsProgressLines,
    line: accountsProgressLine,
    event: 'sync.progress',
    message: 'sync progress',
  });
  return {
    update(account, progress) {
      const entry = state.accounts.find((a) => a.account === account);
      if (entry) entry.progress = progress;
      live.update(state);
    },
    done: () => live.done(),
  };
}
