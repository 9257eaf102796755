import type { Command } from 'commander';
import { DEFAULT_TARGET_WORDS, TARGET_FORMS, TARGET_TITLES } from '../../config/load-target.js';
import type { Config } from '../../config/schema.js';
import { ExitCode } from '../../errors.js';
import type { Logger } from '../../log.js';
import { cliLogger, liveProgressOptions } from '../cli-logger.js';
import { withV8Collector } from '../gc-tuning.js';
import { abortOnSignals, configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';

/**
 * Loads into the target with a progress line (on a TTY; `load.progress` log events
 * otherwise) and prints the summary. Exit 1 when a manifest could not be loaded;
 * shared by `load` and `sync --load`. `accounts`: the accounts of a config that
 * lists them, loaded into `config`'s one target (loadOfConfigFile).
 */
export async function runLoad(
  config: Config,
  options: { into?: string; mixPipelines?: boolean; accounts?: Config[]; logger: Logger; signal?: AbortSignal },
): Promise<number> {
  const [{ createLiveProgress }, { loadJob }, { loadProgressLine, loadProgressLines }, { formatLoadSummary }] =
    await Promise.all([
      import('../../live-progress.js'),
      import('../../load/load-job.js'),
      import('../../load/load-progress.js'),
      import('../../load/load-summary.js'),
    ]);
  const progress = createLiveProgress(liveProgressOptions(options.logger), {
    render: loadProgressLines,
    line: loadProgressLine,
    event: 'load.progress',
    message: 'load progress',
  });
  try {
    const summary = await withV8Collector(() => loadJob(config, { ...options, onProgress: progress.update }));
    progress.done();
    process.stdout.write(`${formatLoadSummary(summary)}\n`);
    return summary.status === 'failed' ? ExitCode.failure : ExitCode.ok;
  } finally {
    progress.done();
  }
}

export function registerLoadCommand(program: Command): void {
  program
    .command('load')
    .description(`load the committed manifests not loaded yet into ${TARGET_TITLES}, in run order`)
    .addOption(configOption())
    .option('--into <target>', `${TARGET_FORMS} (default: load.into, else ${DEFAULT_TARGET_WORDS})`)
    .option('--mix-pipelines', "load output of another source, destination or privacy policy into the target's tables")
    .action((flags: { config: string; into?: string; mixPipelines?: boolean }) =>
      runCommand(async () => {
        const { loadOfConfigFile } = await import('../../load/load-job.js');
        // A config that lists accounts loads every account's output into its one target.
        const { config, accounts } = loadOfConfigFile(readConfigFile(flags.config));
        const logger = cliLogger(config.log.level);
        const controller = new AbortController();
        const signals = abortOnSignals(controller);
        try {
          const code = await runLoad(config, {
            into: flags.into,
            mixPipelines: flags.mixPipelines === true,
            accounts,
            logger,
            signal: controller.signal,
          });
          return signals.signalExitCode() ?? code;
        } finally {
          signals.dispose();
        }
      }),
    );
}
