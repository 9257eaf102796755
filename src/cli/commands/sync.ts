import type { Command } from 'commander';
import type { StreamName } from '../../config/schema.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { SyncSummary } from '../../sync/sync-types.js';
import { cliLogger, liveProgressOptions } from '../cli-logger.js';
import { abortOnSignals, configOption, parseStreamList } from '../options.js';
import { hashKeyFrom, readConfig } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { runLoad } from './load.js';

interface SyncFlags {
  config: string;
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
      'after a sync that succeeded or ended partial, load what it wrote (load.into, else a DuckDB file beside the state)',
    )
    .option('--into <target>', 'with --load: duckdb:<file> or a postgres:// connection string')
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
        const config = readConfig(flags.config, { writesRows: true });
        const [{ resolveLoadTarget }, { formatSummary }, { createProgressReporter }, { syncJob }] = await Promise.all([
          import('../../load/load-job.js'),
          import('../../sync/format-summary.js'),
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
          process.stdout.write(`${formatSummary(result.summary, result.manifestKey)}\n`);
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
