import type { Command } from 'commander';
import { formatDuration } from '../format-duration.js';
import { createLogger } from '../log.js';
import { type CheckResult, checkJob } from '../sync/check-job.js';
import { configOption } from './options.js';
import { hashKeyFrom, readConfig } from './read-config.js';
import { runCommand } from './run-command.js';

const LABEL: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate the config, reach the API, probe each stream, the destination and the state')
    .addOption(configOption())
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const config = readConfig(flags.config, { writesRows: true });
        process.stdout.write(
          `checking ${flags.config}: the API at ${config.source.base_url}, each stream, the destination, the state\n`,
        );
        const results = await checkJob(config, createLogger({ level: config.log.level }), {
          hashKey: hashKeyFrom(),
          onResult: (r) => process.stdout.write(`${LABEL[r.status]}  ${r.name}: ${r.detail}\n`),
          onWaiting: (ms) =>
            process.stdout.write(
              `      waiting for the API's rate limit (${formatDuration(ms)} so far): an earlier run spent this window's requests\n`,
            ),
        });
        return results.some((r) => r.status === 'fail') ? 1 : 0;
      }),
    );
}
