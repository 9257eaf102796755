import { QueuePool } from '../../api/index.js';
import { systemClock } from '../../clock.js';
import type { Config } from '../../config/schema.js';
import { ExitCode, HelpdeskSyncError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { type SyncJobOptions, type SyncJobResult, syncJob } from '../sync-job.js';
import type { SyncProgress } from '../sync-types.js';

/** How one account's sync ended, as the accounts' summary lists it. */
export interface AccountOutcome {
  /** The account's configured name. */
  account: string;
  /** `failed`: its run ended before its manifest (a 401, an unreachable host, its state, its lock…). */
  status: 'succeeded' | 'partial' | 'interrupted' | 'failed';
  result?: SyncJobResult;
  /** Why a failed account failed: the error's stable code and its message (token-free, as every error). */
  failure?: { code: string; message: string; exitCode: number };
  /** How long the account's sync took, to its summary or its failure. */
  durationMs: number;
}

export interface SyncAccountsOptions extends Omit<SyncJobOptions, 'queue' | 'onProgress' | 'logger'> {
  logger: Logger;
  /** Each account's progress, by name. */
  onProgress?: (account: string, progress: SyncProgress) => void;
  /**
   * The queues to send through (the daemon's, kept for the process, shared with its applies).
   * @default a pool of this call's own, closed when every account has ended
   */
  pool?: QueuePool;
}

/**
 * Syncs several accounts in one process (docs/operations.md, "Several
 * accounts"): all at once, every account that reaches one origin from one
 * local address sharing one request queue (one budget and one learned window,
 * as the API limits per client IP), each in a lane weighted by its share, so a
 * large account never starves a small one. Each account runs its own sync job
 * (its own state, lock, spool, output prefix and manifest): one account's
 * failure is that account's outcome, and the others commit.
 */
export async function syncAccounts(
  accounts: readonly Config[],
  options: SyncAccountsOptions,
): Promise<AccountOutcome[]> {
  const { pool: given, onProgress, ...jobOptions } = options;
  const pool = given ?? new QueuePool(options.logger);
  const clock = options.clock ?? systemClock;
  try {
    return await Promise.all(
      accounts.map(async (config): Promise<AccountOutcome> => {
        const account = config.account?.name ?? '';
        const logger = options.logger.child({ account });
        const started = clock.now();
        const took = () => clock.now() - started;
        try {
          const result = await syncJob(config, {
            ...jobOptions,
            logger,
            queue: pool.queueFor(config.source),
            onProgress: onProgress && ((p) => onProgress(account, p)),
          });
          return { account, status: result.summary.status, result, durationMs: took() };
        } catch (error) {
          // A stop (a signal, the daemon shutting down) that came before the run began its output ends
          // with the abort's own error, not one of the connector's: the account was interrupted, not failed.
          if (options.signal?.aborted && !(error instanceof HelpdeskSyncError)) {
            logger.info({ event: 'account.interrupted' }, `account ${account}: stopped before its run began`);
            return { account, status: 'interrupted', durationMs: took() };
          }
          logger.error({ event: 'account.failed', err: error }, `account ${account}: the sync failed`);
          return { account, status: 'failed', failure: failureOf(error), durationMs: took() };
        }
      }),
    );
  } finally {
    if (!given) pool.close();
  }
}

/** Why an account's part failed, as the accounts' summaries say it: the error's code, message and exit code. */
export function failureOf(error: unknown): NonNullable<AccountOutcome['failure']> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof HelpdeskSyncError) return { code: error.code, message, exitCode: error.exitCode };
  return { code: 'FAILED', message, exitCode: ExitCode.failure };
}

/**
 * The exit code of several accounts' syncs (docs/operations.md, "Exit codes"):
 * 0 when every account succeeded (or was interrupted by its deadline); the
 * failed accounts' code when every account failed alike (1, or 75 when every
 * lock was held); else 3, partial: some account failed or ended partial, and the
 * others committed.
 */
export function accountsExitCode(outcomes: readonly AccountOutcome[]): number {
  if (outcomes.every((o) => o.status === 'succeeded' || o.status === 'interrupted')) return ExitCode.ok;
  const failed = outcomes.filter((o) => o.status === 'failed');
  if (failed.length === outcomes.length) {
    const codes = new Set(failed.map((o) => o.failure?.exitCode ?? ExitCode.failure));
    return codes.size === 1 ? ([...codes][0] as number) : ExitCode.failure;
  }
  return ExitCode.partial;
}
