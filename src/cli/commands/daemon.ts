import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../errors.js';
import { cliLogger } from '../cli-logger.js';
import { withV8Collector } from '../gc-tuning.js';
import { configOption } from '../options.js';
import { hashKeyFrom, readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';

/** What the daemon runs, loaded when it starts (not when the command line is defined). */
async function daemonParts() {
  const [cron, daemon, jobs, monitor, statusSource, status, html] = await Promise.all([
    import('node-cron'),
    import('../../daemon/daemon.js'),
    import('../../daemon/daemon-jobs.js'),
    import('../../daemon/daemon-monitor.js'),
    import('../../daemon/status-source.js'),
    import('../../report/status-from-config.js'),
    import('../../report/html.js'),
  ]);
  return { nodeCron: cron.default, ...daemon, ...jobs, ...monitor, ...statusSource, ...status, safeUrl: html.safeUrl };
}

export function registerDaemonCommand(program: Command): void {
  program
    .command('daemon')
    .description('run sync and apply on the cron schedules of the config (schedule.sync, schedule.push)')
    .addOption(configOption())
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const parsed = readConfigFile(flags.config, { writesRows: true });
        const config = parsed.accounts[0] as Config;
        if (!config.schedule.sync && !config.schedule.push) {
          throw new UsageError('daemon: the config schedules nothing; set schedule.sync and/or schedule.push');
        }
        const logger = cliLogger(config.log.level, { humanLevel: 'info' });
        const {
          nodeCron,
          daemonJobs,
          startDaemon,
          startDaemonMonitor,
          createStatusSource,
          readAccountState,
          statusContext,
          outputLocation,
          safeUrl,
        } = await daemonParts();
        // One queue per origin and local address for every job of every account (docs/accounts.md).
        const jobs = daemonJobs(parsed, {
          logger,
          hashKey: hashKeyFrom(),
          aroundLoad: withV8Collector,
          onProgress: (p, account) => monitor.onProgress(p, account),
        });
        const { schedule } = statusContext(config);
        const status = createStatusSource({
          accounts: parsed.accounts.map((account) => ({
            ...(account.account ? { name: account.account.name } : {}),
            source: safeUrl(account.source.base_url),
            output: outputLocation(account.destination),
            read: () => readAccountState(account, logger),
          })),
          ...(schedule ? { schedule } : {}),
          logger,
        });
        await status.refresh();
        const monitor = await startDaemonMonitor({
          status,
          listen: config.metrics.listen,
          unhealthyAfterFailures: config.metrics.unhealthy_after_failures,
          queues: jobs.queues,
          logger,
        });
        const daemon = startDaemon({
          schedules: config.schedule,
          jobs: { ...(jobs.sync ? { sync: jobs.sync } : {}), ...(jobs.push ? { push: jobs.push } : {}) },
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
        jobs.close();
        await monitor.close();
        // A clean stop on request is a success for the daemon (orchestrators send SIGTERM routinely).
        return 0;
      }),
    );
}
