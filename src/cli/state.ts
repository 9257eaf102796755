import type { Command } from 'commander';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../config/load.js';
import { openStateDb } from '../state/database.js';
import { acquireRunLock } from '../sync/run-lock.js';
import { describeState, formatStateOverview, resetState } from '../sync/state-admin.js';
import { parseStreamList } from './options.js';
import { runCommand } from './run-command.js';

export function registerStateCommand(program: Command): void {
  const state = program.command('state').description('show or reset what the streams remember');
  state
    .command('show')
    .description('per-stream state and the last run')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const config = loadConfig(flags.config);
        const db = openStateDb(config.state.path);
        try {
          process.stdout.write(`${formatStateOverview(describeState(db))}\n`);
        } finally {
          db.close();
        }
        return 0;
      }),
    );
  state
    .command('reset')
    .description('forget fingerprints and positions (all streams, or --stream); output files are kept')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .option('--stream <list>', 'comma-separated streams to reset')
    .action((flags: { config: string; stream?: string }) =>
      runCommand(async () => {
        const streams = flags.stream ? parseStreamList(flags.stream, '--stream') : undefined;
        const config = loadConfig(flags.config);
        const lock = acquireRunLock(config.state.path, 'state reset');
        const db = openStateDb(config.state.path);
        try {
          const removed = resetState(db, streams);
          process.stdout.write(`reset ${streams ? streams.join(', ') : 'every stream'}: ${removed} keys forgotten\n`);
        } finally {
          db.close();
          lock.release();
        }
        return 0;
      }),
    );
}
