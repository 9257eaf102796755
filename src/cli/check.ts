import type { Command } from 'commander';
import { DEFAULT_CONFIG_PATH } from '../config/load.js';
import { createLogger } from '../log.js';
import { checkJob } from '../sync/check-job.js';
import { hashKeyFrom, readConfig } from './read-config.js';
import { runCommand } from './run-command.js';

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate the config, reach the API, probe each stream, the destination and the state')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const config = readConfig(flags.config, { writesRows: true });
        const results = await checkJob(config, createLogger({ level: config.log.level }), undefined, hashKeyFrom());
        for (const r of results) process.stdout.write(`${r.ok ? 'ok  ' : 'FAIL'}  ${r.name}: ${r.detail}\n`);
        return results.every((r) => r.ok) ? 0 : 1;
      }),
    );
}
