import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { accountHeading, accountOption, selectAccounts } from '../select-accounts.js';

interface VerifyFlags {
  config: string;
  account?: string;
  output?: boolean;
  sample?: string;
}

/** `--sample N`: a whole number from 0 up, and only with --output (the rows it compares are in the files). */
function sampleSize(flags: VerifyFlags): number {
  if (flags.sample === undefined) return 0;
  const n = /^\d+$/.test(flags.sample) ? Number(flags.sample) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`--sample: expected a whole number from 0 up, got ${flags.sample}`);
  if (n > 0 && !flags.output) throw new UsageError('--sample compares conversations with their rows: add --output');
  return n;
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      'compare the state (and with --output the committed files) with a fresh listing; exit 1 on an unexplained difference',
    )
    .addOption(configOption())
    .addOption(accountOption())
    .option('--output', 'also read the committed files back and compare them with the state')
    .option(
      '--sample <n>',
      'compare N conversations and their threads field by field with their latest rows (needs --output)',
    )
    .action((flags: VerifyFlags) =>
      runCommand(async () => {
        const sample = sampleSize(flags);
        const accounts = selectAccounts(readConfigFile(flags.config), flags.account);
        const [{ formatVerifyReport, unexplainedCount }, { verifyJob }] = await Promise.all([
          import('../../verify/format-verify-report.js'),
          import('../../verify/verify-job.js'),
        ]);
        let unexplained = 0;
        for (const config of accounts) {
          process.stdout.write(accountHeading(config));
          const report = await verifyJob(config, {
            output: flags.output === true,
            sample,
            logger: cliLogger(config.log.level),
            onCost: (text) => process.stdout.write(`${text}\n`),
          });
          process.stdout.write(`${formatVerifyReport(report)}\n`);
          unexplained += unexplainedCount(report);
        }
        return unexplained > 0 ? 1 : 0;
      }),
    );
}
