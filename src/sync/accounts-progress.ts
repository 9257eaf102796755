import { createLiveProgress, type LiveProgress } from '../live-progress.js';
import { type ProgressReporterOptions, progressLine, progressLines } from './progress.js';
import type { SyncProgress } from './sync-types.js';

/** The progress of several accounts' syncs, in the order the config lists them. */
export interface AccountsProgress {
  accounts: Array<{ account: string; progress?: SyncProgress }>;
}

/** The live block of several accounts: each account's block under its name. */
export function accountsProgressLines(p: AccountsProgress): string[] {
  return p.accounts.flatMap(({ account, progress }) =>
    progress
      ? [`account ${account}`, ...progressLines(progress).map((l) => `  ${l}`)]
      : [`account ${account}: starting`],
  );
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
