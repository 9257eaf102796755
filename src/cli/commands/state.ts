import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { stateSettingsOf } from '../../config/state-location.js';
import { cliLogger } from '../cli-logger.js';
import { configOption, parseStreamList } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { accountHeading, accountOption, selectAccounts } from '../select-accounts.js';
import { registerPushStateCommands } from './state-push.js';

export function registerStateCommand(program: Command): void {
  const state = program.command('state').description('show or reset what the streams remember');
  state
    .command('show')
    .description('per-stream state and the last run (all streams, or --stream)')
    .addOption(configOption())
    .addOption(accountOption())
    .option('--stream <list>', 'comma-separated streams to show')
    .action((flags: { config: string; account?: string; stream?: string }) =>
      runCommand(async () => {
        const only = flags.stream !== undefined ? new Set(parseStreamList(flags.stream, '--stream')) : undefined;
        const accounts = selectAccounts(readConfigFile(flags.config), flags.account);
        const [
          { openStateFromConfig },
          { describeState, formatStateOverview },
          { explainStateError },
          { streamScopes },
        ] = await Promise.all([
          import('../../state/state-from-config.js'),
          import('../../state/state-admin.js'),
          import('../../state/explain-state-error.js'),
          import('../../streams/scopes.js'),
        ]);
        for (const config of accounts) {
          process.stdout.write(accountHeading(config));
          // Read-only: nothing on disk changes, and a state not created yet is said, not created.
          const state = await openStateFromConfig(stateSettingsOf(config), { logger: cliLogger(config.log.level) });
          if (state.absent) {
            await state.close();
            process.stdout.write(`no state at ${state.location} yet: the first sync creates it\n`);
            continue;
          }
          try {
            const overview = { ...describeState(state.db, streamScopes), path: state.location };
            if (only) overview.streams = overview.streams.filter((s) => only.has(s.stream));
            process.stdout.write(`${formatStateOverview(overview)}\n`);
          } catch (error) {
            throw explainStateError(error, state.place);
          } finally {
            await state.close();
          }
        }
        return 0;
      }),
    );
  state
    .command('reset')
    .description('forget fingerprints and positions (all streams, or --stream); output files are kept')
    .addOption(configOption())
    .addOption(accountOption())
    .option('--stream <list>', 'comma-separated streams to reset')
    .action((flags: { config: string; account?: string; stream?: string }) =>
      runCommand(async () => {
        const streams = flags.stream !== undefined ? parseStreamList(flags.stream, '--stream') : undefined;
        // Forgetting is not undone: with several accounts, the one to reset is named.
        const [config] = selectAccounts(readConfigFile(flags.config), flags.account, true) as [Config];
        const [{ openLockedState }, { resetState }, { explainStateError }, { streamScopes }] = await Promise.all([
          import('../../lock/locked-state.js'),
          import('../../state/state-admin.js'),
          import('../../state/explain-state-error.js'),
          import('../../streams/scopes.js'),
        ]);
        const locked = await openLockedState(stateSettingsOf(config), 'state reset', cliLogger(config.log.level));
        let removed: number;
        try {
          removed = resetState(locked.state.db, streamScopes, streams);
        } catch (error) {
          await locked.close();
          throw explainStateError(error, locked.state.place);
        }
        await locked.close({ save: true });
        process.stdout.write(`reset ${streams ? streams.join(', ') : 'every stream'}: ${removed} keys forgotten\n`);
        return 0;
      }),
    );
  registerPushStateCommands(state);
}
