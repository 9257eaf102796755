import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { formatDuration } from '../../format-duration.js';
import type { checkJob as CheckJob, CheckResult } from '../../sync/check-job.js';
import type { LiveDisplay } from '../../terminal/live-display.js';
import { cliLogger, processTerminal } from '../cli-logger.js';
import { configOption } from '../options.js';
import { hashKeyFrom, readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
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
        const { checkJob } = await import('../../sync/check-job.js');
        let failed = false;
        for (const config of accounts) {
          process.stdout.write(accountHeading(config));
          process.stdout.write(
            `checking ${flags.config}: the API at ${config.source.base_url}, each stream, the destination, the state\n`,
          );
          if (await checkOne(config, checkJob)) failed = true;
        }
        return failed ? 1 : 0;
      }),
    );
}

/** Checks one account, printing each result as it comes; true when one failed. */
async function checkOne(config: Config, checkJob: typeof CheckJob): Promise<boolean> {
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
      onResult: (r) => {
        stopWaiting();
        term.print(`${LABEL[r.status]}  ${r.name}: ${r.detail}\n`);
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
