#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { VERSION } from '../version.js';
import { logOptions, useLogSettings } from './cli-logger.js';
import { registerCommands } from './commands.js';
import { tuneGarbageCollector } from './gc-tuning.js';

tuneGarbageCollector();

const program = new Command()
  .name('helpdesk-sync')
  .description('Incremental sync of the Helpdesk API into warehouse-ready JSONL, and hours/holidays as code.')
  .version(VERSION)
  .showHelpAfterError()
  .configureHelp({ showGlobalOptions: true })
  .exitOverride();
for (const option of logOptions()) program.addOption(option);
program.hook('preAction', () => useLogSettings(program.opts()));

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; every usage mistake is exit 64 (EX_USAGE; see docs/operations.md).
    process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  } else {
    throw error;
  }
}
