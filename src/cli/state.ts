import type { Command } from 'commander';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../config/load.js';
import { openLockedState } from '../lock/locked-state.js';
import { createLogger } from '../log.js';
import { describeState, formatStateOverview, resetState } from '../state/state-admin.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { streamScopes } from '../streams/scopes.js';
import { parseStreamList } from './options.js';
import { runCommand } from './run-command.js';
import { registerPushStateCommands } from './state-push.js';

export function registerStateCommand(program: Command): void {
  const state = program.command('state').description('show or reset what the streams remember');
  state
    .command('show')
    .description('per-stream state and the last run')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action((flags: { config: string }) =>
      runCommand(async () => {
        const config = loadConfig(flags.config);
        const state = await openStateFromConfig(config, { logger: createLogger({ level: config.log.level }) });
        try {
          process.stdout.write(
            `${formatStateOverview({ ...describeState(state.db, streamScopes), path: state.location })}\n`,
          );
        } finally {
          await state.close();
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
        const locked = await openLockedState(config, 'state reset', createLogger({ level: config.log.level }));
        let removed: number;
        try {
          removed = resetState(locked.state.db, streamScopes, streams);
        } catch (error) {
          await locked.close();
          throw error;
        }
        await locked.close({ save: true });
        process.stdout.write(`reset ${streams ? streams.join(', ') : 'every stream'}: ${removed} keys forgotten\n`);
        return 0;
      }),
    );
  registerPushStateCommands(state);
}
