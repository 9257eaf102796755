import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { pushAccounts } from '../../config/accounts.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { ApplyOutcome } from '../../push/index.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand, sayError } from '../run-command.js';
import { accountOption, eachAccount, selectAccounts } from '../select-accounts.js';
import { planContextFromEnv } from './plan.js';

interface ApplyFlags {
  config: string;
  account?: string;
  prune?: boolean;
  pruneUnmanaged?: boolean;
  autoApprove?: boolean;
  plan?: string;
  report?: string;
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
    .addOption(accountOption())
    .option('--prune', 'also delete the remote objects of entries removed from the config')
    .option('--prune-unmanaged', 'also delete remote profiles and holidays the config never managed (implies --prune)')
    .option('--auto-approve', 'apply without asking (CI, scheduled runs)')
    .option(
      '--plan <file>',
      'apply the plan saved by plan --out, only if it is still what a plan made now would be (no question asked)',
    )
    .option('--report <file>', 'write how the apply ended as Markdown (for a pull-request comment), whatever happens')
    .action((flags: ApplyFlags) =>
      runCommand(async () => {
        const push = await import('../../push/index.js');
        let outcome: ApplyOutcome | undefined;
        let code: number;
        try {
          code = await applyCommand(push, flags, (o) => {
            outcome = o;
          });
        } catch (error) {
          outcome ??= push.refusedOutcome(error);
          // The apply's own error is what ends the command; a report that cannot be written is said beside it.
          if (flags.report) await reportOrSay(push, flags.report, outcome);
          throw error;
        }
        if (flags.report && outcome) writeApplyReport(push, flags.report, outcome);
        return code;
      }),
    );
}

/** The push layer, loaded when apply runs (not when the command line is defined). */
type Push = typeof import('../../push/index.js');

async function applyCommand(
  { readSavedPlan, runApply, withPushDeps }: Push,
  flags: ApplyFlags,
  onOutcome: (outcome: ApplyOutcome) => void,
): Promise<number> {
  if (flags.plan && (flags.prune || flags.pruneUnmanaged)) {
    throw new UsageError('a saved plan carries its own --prune and --prune-unmanaged; give them to plan --out instead');
  }
  if (!flags.plan && !flags.autoApprove && !process.stdin.isTTY) {
    throw new UsageError('apply asks for approval on a terminal; pass --auto-approve to run it unattended');
  }
  // Read before the lock and any request: a file that is not a saved plan changes nothing.
  const saved = flags.plan ? readSavedPlan(flags.plan) : undefined;
  const parsed = readConfigFile(flags.config);
  // A saved plan and a report are one account's: with several, they name the account.
  const one = flags.plan !== undefined || flags.report !== undefined;
  const accounts = pushAccounts(parsed.file, selectAccounts(parsed, flags.account, one));
  const runs = await eachAccount(
    accounts,
    (config) =>
      withPushDeps(config, { logger: cliLogger(config.log.level), lockAs: 'apply' }, (deps) =>
        runApply(config.push, deps, {
          prune: flags.prune,
          pruneUnmanaged: flags.pruneUnmanaged,
          autoApprove: flags.autoApprove,
          confirm: askOnTerminal,
          saved,
          onOutcome,
        }),
      ),
    sayError,
  );
  return applyExitCode(runs);
}

/**
 * Several accounts' applies: 0 when each applied, 3 (partial) when some failed and
 * others applied (each failure said above), 1 when every one failed.
 */
function applyExitCode(runs: ReadonlyArray<{ code?: number; error?: unknown }>): number {
  if (runs.length === 1 && runs[0]?.error === undefined) return runs[0]?.code ?? ExitCode.ok;
  const failed = runs.filter((r) => r.error !== undefined || (r.code ?? 0) !== 0).length;
  if (failed === 0) return ExitCode.ok;
  if (failed === runs.length) return ExitCode.failure;
  process.stdout.write(
    `partial: ${runs.length - failed} of ${runs.length} accounts applied; the others failed (above)\n`,
  );
  return ExitCode.partial;
}

function writeApplyReport(
  { formatApplyOutcomeMarkdown, writeWholeFile }: Push,
  path: string,
  outcome: ApplyOutcome,
): void {
  writeWholeFile(path, formatApplyOutcomeMarkdown(outcome, planContextFromEnv()), 'the apply report');
}

async function reportOrSay(push: Push, path: string, outcome: ApplyOutcome): Promise<void> {
  try {
    writeApplyReport(push, path, outcome);
  } catch (error) {
    await sayError(error);
  }
}
