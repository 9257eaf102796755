import { type Command, Option } from 'commander';
import { pushAccounts } from '../../config/accounts.js';
import { UsageError } from '../../errors.js';
import { PLAN_FORMATS, type PlanFormat } from '../../push/choices.js';
import type { PlanContext } from '../../push/index.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { exitCodeFor, runCommand, sayError } from '../run-command.js';
import { accountOption, eachAccount, selectAccounts } from '../select-accounts.js';

interface PlanFlags {
  config: string;
  account?: string;
  detailedExitcode?: boolean;
  format: PlanFormat;
  json?: boolean;
  prune?: boolean;
  pruneUnmanaged?: boolean;
  out?: string;
}

/**
 * The commit and run a GitHub Actions job plans at, from the variables every job
 * has (GITHUB_SHA, GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID); none elsewhere.
 */
export function planContextFromEnv(env: NodeJS.ProcessEnv = process.env): PlanContext {
  const { GITHUB_SHA, GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID } = env;
  return {
    ...(GITHUB_SHA ? { commit: GITHUB_SHA.slice(0, 12) } : {}),
    ...(GITHUB_SERVER_URL && GITHUB_REPOSITORY && GITHUB_RUN_ID
      ? { runUrl: `${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}` }
      : {}),
  };
}

export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description('show what apply would change in business hours and holidays (push files vs the live API)')
    .addOption(configOption())
    .addOption(accountOption())
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .addOption(
      new Option('--format <format>', 'text (terminal), json (programs) or markdown (a pull-request comment)')
        .choices(PLAN_FORMATS)
        .default('text'),
    )
    .option('--json', 'print the plan as JSON (same as --format json)')
    .option('--prune', 'plan what apply --prune would do (delete the objects of entries removed from the config)')
    .option(
      '--prune-unmanaged',
      'plan what apply --prune-unmanaged would do (also delete objects the config never managed)',
    )
    .option('--out <file>', 'also save the plan to this file, for apply --plan (not written when the plan is blocked)')
    .action((flags: PlanFlags) =>
      runCommand(async () => {
        if (flags.json && flags.format !== 'text' && flags.format !== 'json') {
          throw new UsageError(`--json and --format ${flags.format} disagree; give one of them`);
        }
        const parsed = readConfigFile(flags.config);
        // A saved plan is one account's: with several, --out names the account.
        const accounts = pushAccounts(parsed.file, selectAccounts(parsed, flags.account, flags.out !== undefined));
        const { runPlan, withPushDeps } = await import('../../push/index.js');
        const runs = await eachAccount(
          accounts,
          (config) =>
            withPushDeps(config, { logger: cliLogger(config.log.level) }, (deps) =>
              runPlan(config.push, deps, {
                format: flags.json ? 'json' : flags.format,
                detailedExitcode: flags.detailedExitcode,
                prune: flags.prune,
                pruneUnmanaged: flags.pruneUnmanaged,
                context: planContextFromEnv(),
                out: flags.out,
              }),
            ),
          sayError,
        );
        return planExitCode(runs.map((r) => (r.error === undefined ? (r.code ?? 0) : exitCodeFor(r.error))));
      }),
    );
}

/** The exit code of several accounts' plans: an error (any code but 0 and 2) wins, then changes (2), else 0. */
function planExitCode(codes: number[]): number {
  const error = codes.find((c) => c !== 0 && c !== 2);
  if (error !== undefined) return error;
  return codes.includes(2) ? 2 : 0;
}
