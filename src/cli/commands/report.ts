import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { UsageError } from '../../errors.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { accountOption, selectAccounts } from '../select-accounts.js';

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description("write the status page (the daemon's /) from the state: last runs, completeness, backfill, traffic")
    .addOption(configOption())
    .addOption(accountOption())
    .option('--html <file>', 'write the page to this file (self-contained HTML, no script)')
    .action((flags: { config: string; account?: string; html?: string }) =>
      runCommand(async () => {
        if (!flags.html) throw new UsageError('report: say where the page goes with --html FILE');
        const parsed = readConfigFile(flags.config);
        const accounts = selectAccounts(parsed, flags.account);
        const [{ renderAccountsStatusPage }, { renderStatusPage }, { accountsStatusFromState, statusInputFromState }] =
          await Promise.all([
            import('../../report/render-accounts-page.js'),
            import('../../report/render-status-page.js'),
            import('../../report/status-from-config.js'),
          ]);
        const first = accounts[0] as Config;
        const logger = cliLogger(first.log.level);
        // Every account of a config that lists several on one page; one account (--account NAME, or no accounts:) on its own.
        if (parsed.several && flags.account === undefined) {
          const input = await accountsStatusFromState(accounts, logger, new Date());
          writeFileSync(flags.html, renderAccountsStatusPage(input));
          const runs = input.accounts.reduce((n, a) => n + a.runs.length, 0);
          process.stdout.write(
            `status page of ${input.accounts.length} accounts, ${runs} run(s), written to ${flags.html}\n`,
          );
          return 0;
        }
        const input = await statusInputFromState(first, logger, new Date());
        writeFileSync(flags.html, renderStatusPage(input));
        // The state is read, never created: with none yet, the page says there is no run.
        const runs =
          input.runs.length === 0 ? 'no runs yet (the first sync records one)' : `${input.runs.length} run(s)`;
        process.stdout.write(`status page of ${runs} written to ${flags.html}\n`);
        return 0;
      }),
    );
}
