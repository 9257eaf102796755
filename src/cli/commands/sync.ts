import { type Command, Option } from 'commander';
import type { ParsedConfigFile } from '../../config/load.js';
import { DEFAULT_TARGET_WORDS, TARGET_FORMS } from '../../config/load-target.js';
import type { Config, StreamName } from '../../config/schema.js';
import { accountsOfShard, parseShard } from '../../config/shard.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { SyncSummary } from '../../sync/sync-types.js';
import { cliLogger, liveProgressOptions } from '../cli-logger.js';
import { abortOnSignals, configOption, parseStreamList } from '../options.js';
import { hashKeyFrom, readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { runLoad } from './load.js';

interface SyncFlags {
  config: string;
  shard?: string;
  streams?: string;
  fullRefresh?: string | boolean;
  load?: boolean;
  into?: string;
}

export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description('pull what changed since the last run into the destination')
    .addOption(configOption())
    .option('--streams <list>', 'comma-separated streams to run (default: config `streams`, else all)')
    .option('--full-refresh [list]', 'ignore saved fingerprints for these streams (all when no list)')
    .option(
      '--load',
      `after a sync that succeeded or ended partial, load what it wrote (load.into, else ${DEFAULT_TARGET_WORDS})`,
    )
    .option('--into <target>', `with --load: ${TARGET_FORMS}`)
    .addOption(
      new Option(
        '--shard <i/n>',
        'with a config that lists accounts: sync only shard i (from 0) of n (each account in one shard, by its name)',
      ).env('HELPDESK_SYNC_SHARD'),
    )
    .action((flags: SyncFlags) =>
      runCommand(async () => {
        const streams = flags.streams !== undefined ? parseStreamList(flags.streams, '--streams') : undefined;
        const fullRefresh: StreamName[] | true | undefined =
          flags.fullRefresh === true
            ? true
            : typeof flags.fullRefresh === 'string'
              ? parseStreamList(flags.fullRefresh, '--full-refresh')
              : undefined;
        if (flags.into !== undefined && !flags.load) throw new UsageError('--into goes with --load');
        const parsed = readConfigFile(flags.config, { writesRows: true });
        const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
        if (shard && !parsed.several) throw new UsageError('--shard goes with a config that lists accounts:');
        if (parsed.several) {
          const accounts = shard ? accountsOfShard(parsed.accounts, shard) : parsed.accounts;
          if (shard) {
            const names = accounts.map((a) => a.account?.name).join(', ') || 'no account';
            process.stdout.write(`shard ${shard.index}/${shard.count}: ${names}\n`);
          }
          if (accounts.length === 0) return ExitCode.ok;
          return syncSeveral({ ...parsed, accounts }, flags, { streams, fullRefresh });
        }
        const config = parsed.accounts[0] as Config;
        const [{ resolveLoadTarget }, { formatSummary }, { createProgressReporter }, { syncJob }] = await Promise.all([
          import('../../load/load-job.js'),
          import('../../sync/summary/format-summary.js'),
          import('../../sync/progress.js'),
          import('../../sync/sync-job.js'),
        ]);
        // A wrong --into stops here (exit 64), before the sync it would follow.
        if (flags.load) resolveLoadTarget(config, flags.into);
        const logger = cliLogger(config.log.level);
        const controller = new AbortController();
        const signals = abortOnSignals(controller);
        const progress = createProgressReporter(liveProgressOptions(logger));
        try {
          const result = await syncJob(config, {
            streams,
            fullRefresh,
            signal: controller.signal,
            logger,
            onProgress: progress.update,
            hashKey: hashKeyFrom(),
          });
          progress.done();
          process.stdout.write(`${formatSummary(result.summary, result.manifestKey, result.location)}\n`);
          const synced = syncExitCode(result.summary);
          // After a partial run too: what committed is consistent (docs/loading.md).
          if (flags.load && result.summary.status !== 'interrupted' && !controller.signal.aborted) {
            const code = await runLoad(config, { into: flags.into, logger, signal: controller.signal });
            return signals.signalExitCode() ?? (code === ExitCode.ok ? synced : code);
          }
          return signals.signalExitCode() ?? synced;
        } finally {
          progress.done();
          signals.dispose();
        }
      }),
    );
}

/**
 * The exit code a sync's summary gives (docs/operations.md, "Exit codes"): 3 when the run
 * ended `partial` (it committed what it could, but some part failed), else 0. A signal's
 * code wins over both.
 */
function syncExitCode(summary: SyncSummary): number {
  return summary.status === 'partial' ? ExitCode.partial : ExitCode.ok;
}

/**
 * `sync` of a config that lists accounts (docs/operations.md, "Several accounts"):
 * every account at once through the shared queues, each account's summary, one
 * line of outcomes, and the exit code of them all; with `--load`, then one load
 * of every account's output into the config's one target, when an account
 * committed (the load's failure is the exit code, as for one account).
 */
async function syncSeveral(
  parsed: ParsedConfigFile,
  flags: SyncFlags,
  selection: { streams?: StreamName[]; fullRefresh?: StreamName[] | true },
): Promise<number> {
  const { accounts } = parsed;
  const first = accounts[0] as Config;
  const [{ resolveLoadTarget, loadOfConfigFile }, { formatAccountsSummary }, { createAccountsProgressReporter }, sync] =
    await Promise.all([
      import('../../load/load-job.js'),
      import('../../sync/accounts/format-accounts.js'),
      import('../../sync/accounts/accounts-progress.js'),
      import('../../sync/accounts/sync-accounts.js'),
    ]);
  const load = loadOfConfigFile(parsed);
  // A wrong --into stops here (exit 64), before the syncs it would follow.
  if (flags.load) resolveLoadTarget(load.config, flags.into);
  const logger = cliLogger(first.log.level);
  const controller = new AbortController();
  const signals = abortOnSignals(controller);
  const names = accounts.map((a) => a.account?.name ?? '');
  const progress = createAccountsProgressReporter(names, liveProgressOptions(logger));
  try {
    const outcomes = await sync.syncAccounts(accounts, {
      ...selection,
      signal: controller.signal,
      logger,
      onProgress: progress.update,
      hashKey: hashKeyFrom(),
    });
    progress.done();
    process.stdout.write(`${formatAccountsSummary(outcomes)}\n`);
    const synced = sync.accountsExitCode(outcomes);
    // After every account's sync, what any account committed (succeeded or partial) is whole: load it all.
    const committed = outcomes.some((o) => o.status === 'succeeded' || o.status === 'partial');
    if (flags.load && committed && !controller.signal.aborted) {
      const code = await runLoad(load.config, {
        accounts: load.accounts,
        into: flags.into,
        logger,
        signal: controller.signal,
      });
      return signals.signalExitCode() ?? (code === ExitCode.ok ? synced : code);
    }
    return signals.signalExitCode() ?? synced;
  } finally {
    progress.done();
    signals.dispose();
  }
}
