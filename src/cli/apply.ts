import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { withPushDeps } from '../push/push-job.js';
import { runApply } from '../push/run-push.js';
import { configOption } from './options.js';
import { readConfig } from './read-config.js';
import { runCommand } from './run-command.js';

interface ApplyFlags {
  config: string;
  prune?: boolean;
  pruneUnmanaged?: boolean;
  autoApprove?: boolean;
}

/** Asks on the terminal; only an explicit "yes" approves. */
async function askOnTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}

export function registerApplyCommand(program: Command): void {
  program
    .command('apply')
    .description('make the live business hours and holidays match the push files')
    .addOption(configOption())
    .option('--prune', 'also delete the remote objects of entries removed from the config')
    .option('--prune-unmanaged', 'also delete remote profiles and holidays the config never managed (implies --prune)')
    .option('--auto-approve', 'apply without asking (CI, scheduled runs)')
    .action((flags: ApplyFlags) =>
      runCommand(async () => {
        if (!flags.autoApprove && !process.stdin.isTTY) {
          throw new UsageError('apply asks for approval on a terminal; pass --auto-approve to run it unattended');
        }
        const config = readConfig(flags.config);
        const logger = createLogger({ level: config.log.level });
        return withPushDeps(config, { logger, lockAs: 'apply' }, (deps) =>
          runApply(config.push, deps, {
            prune: flags.prune,
            pruneUnmanaged: flags.pruneUnmanaged,
            autoApprove: flags.autoApprove,
            confirm: askOnTerminal,
          }),
        );
      }),
    );
}
