import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { formatDuration } from '../../format-duration.js';
import type { checkJob as CheckJob, CheckJobOptions, CheckResult } from '../../sync/check-job.js';
import type { LiveDisplay } from '../../terminal/live-display.js';
import { cliLogger, processTerminal } from '../cli-logger.js';
import { commandContext } from '../command-context.js';
import { configOption } from '../options.js';
import { hashKeyFrom, readConfigFile } from '../read-config.js';
import { nextSteps, runCommand } from '../run-command.js';
import { accountHeading, accountOption, selectAccounts } from '../select-accounts.js';

const LABEL: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate the config, reach the API, probe each stream, the destination and the state')
    .addOption(configOption())
    .addOption(accountOption())
    .action((flags: { config: string; account?: string }) =>
      runCommand(async () => {
        const accounts = selectAccounts(readConfigFile(flags.config, { writesRows: true }), flags.account);
        const [{ checkJob }, { hintFor }] = await Promise.all([
          import('../../sync/check-job.js'),
          import('../../api/index.js'),
        ]);
        const withPush = accounts.some((a) => a.push.holidays || a.push.business_hours);
        const push = withPush ? await import('../../push/index.js') : undefined;
        let failed = false;
        for (const config of accounts) {
          process.stdout.write(accountHeading(config));
          process.stdout.write(
            `checking ${flags.config}: the API at ${config.source.base_url}, each stream, the destination, the state\n`,
          );
          const parts: CheckParts = {
            checkJob,
            hint: (error) => nextSteps(error, { context: commandContext(), apiHint: hintFor }).join('; '),
            ...(push ? { pushFiles: (api) => push.checkPushFiles(config.push, api) } : {}),
          };
          if (await checkOne(config, parts)) failed = true;
        }
        return failed ? 1 : 0;
      }),
    );
}

/** What a check runs with: the job, and the command line's words and push validation it hands the job. */
interface CheckParts extends Pick<CheckJobOptions, 'hint' | 'pushFiles'> {
  checkJob: typeof CheckJob;
}

/** A result's lines: its label and detail, a detail's further lines and what to do about a failure indented under it. */
function resultLines(r: CheckResult): string {
  const indent = ' '.repeat(6);
  const detail = r.detail.split('\n').join(`\n${indent}`);
  return `${LABEL[r.status]}  ${r.name}: ${detail}\n${r.hint ? `${indent}${r.hint}\n` : ''}`;
}

/** Checks one account, printing each result as it comes; true when one failed. */
async function checkOne(config: Config, { checkJob, hint, pushFiles }: CheckParts): Promise<boolean> {
  const term = processTerminal();
  // On a terminal the wait is one line redrawn in place, gone once the next result is known.
  let waiting: LiveDisplay | undefined;
  const stopWaiting = () => {
    waiting?.close();
    waiting = undefined;
  };
  try {
    const results = await checkJob(config, cliLogger(config.log.level), {
      hashKey: hashKeyFrom(),
      ...(hint ? { hint: (error: unknown) => hint(error) || undefined } : {}),
      ...(pushFiles ? { pushFiles } : {}),
      onResult: (r) => {
        stopWaiting();
        term.print(resultLines(r));
      },
      onWaiting: (ms) => {
        const line = `      waiting for the API's rate limit (${formatDuration(ms)} so far): an earlier run spent this window's requests`;
        if (!term.interactive) return void term.print(`${line}\n`);
        waiting ??= term.openLive();
        waiting.draw([line]);
      },
    });
    return results.some((r) => r.status === 'fail');
  } finally {
    stopWaiting();
  }
}
