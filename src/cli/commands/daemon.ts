import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import type { DaemonJob } from '../../daemon/daemon.js';
import { UsageError } from '../../errors.js';
import type { SyncProgress } from '../../sync/sync-types.js';
import { cliLogger } from '../cli-logger.js';
import { withV8Collector } from '../gc-tuning.js';
import { configOption } from '../options.js';
import { hashKeyFrom, readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';

/** What the daemon runs, loaded when it starts (not when the command line is defined). */
async function daemonParts() {
  const [cron, api, daemon, monitor, statusSource, syncAndLoad, push, status, progress] = await Promise.all([
    import('node-cron'),
    import('../../api/index.js'),
    import('../../daemon/daemon.js'),
    import('../../daemon/daemon-monitor.js'),
    import('../../daemon/status-source.js'),
    import('../../daemon/sync-and-load.js'),
    import('../../push/index.js'),
    import('../../report/status-from-config.js'),
    import('../../sync/progress.js'),
  ]);
  return {
    nodeCron: cron.default,
    ...api,
    ...daemon,
    ...monitor,
    ...statusSource,
    ...syncAndLoad,
    applyJob: push.applyJob,
    ...status,
    ...progress,
  };
}

export function registerDaemonCommand(program: Command): void {
  program
    .command('daemon')
    .description('run sync and apply on the cron schedules of the config (schedule.sync, schedule.push)')
    .addOption(configOption())
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const parsed = readConfigFile(flags.config, { writesRows: true });
        if (parsed.several) {
          throw new UsageError(
            'daemon: a config that lists accounts is not run by the daemon yet; run sync on a schedule',
          );
        }
        const config = parsed.accounts[0] as Config;
        if (!config.schedule.sync && !config.schedule.push) {
          throw new UsageError('daemon: the config schedules nothing; set schedule.sync and/or schedule.push');
        }
        const logger = cliLogger(config.log.level, { humanLevel: 'info' });
        const {
          nodeCron,
          apiClientFromConfig,
          startDaemon,
          startDaemonMonitor,
          createStatusSource,
          syncAndLoad,
          applyJob,
          readRunsFromState,
          statusContext,
          createProgressReporter,
        } = await daemonParts();
        // One queue for every job of the process: sync and push share the rate budget (docs/rate-limits.md).
        const shared = apiClientFromConfig(config.source, logger);
        const sync: DaemonJob = async (signal) => {
          // Unattended: a structured sync.progress event every 10 s, no live block and no stdout line.
          const progress = createProgressReporter({ logger });
          const onProgress = (p: SyncProgress) => {
            progress.update(p);
            monitor.onProgress(p);
          };
          try {
            return await syncAndLoad(config, {
              logger,
              signal,
              queue: shared.queue,
              onProgress,
              hashKey: hashKeyFrom(),
              aroundLoad: withV8Collector,
            });
          } finally {
            progress.done();
          }
        };
        const push: DaemonJob = (signal) => applyJob(config, { logger, signal, queue: shared.queue });
        const status = createStatusSource({
          loadRuns: () => readRunsFromState(config, logger),
          ...statusContext(config),
          logger,
        });
        await status.refresh();
        const monitor = await startDaemonMonitor({
          status,
          listen: config.metrics.listen,
          unhealthyAfterFailures: config.metrics.unhealthy_after_failures,
          requestStats: () => shared.stats(),
          logger,
        });
        const daemon = startDaemon({
          schedules: config.schedule,
          jobs: { sync, push },
          timezone: config.schedule.timezone,
          cron: { schedule: (expr, fn, options) => nodeCron.schedule(expr, fn, options) },
          logger,
          onRunFinished: monitor.onRunFinished,
        });
        await new Promise<void>((resolve) => {
          const stop = (signal: NodeJS.Signals) => {
            logger.info({ event: 'daemon.stopping', signal }, 'stopping: finishing the running job');
            monitor.stopping();
            void daemon.stop().then(resolve);
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        shared.close();
        await monitor.close();
        // A clean stop on request is a success for the daemon (orchestrators send SIGTERM routinely).
        return 0;
      }),
    );
}
