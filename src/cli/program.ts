import { Command } from 'commander';
import { VERSION } from '../version.js';
import { logOptions, useLogSettings, warningsAsEvents } from './cli-logger.js';
import { registerCommands } from './commands.js';
import { usageErrorOutput } from './usage-error-output.js';

/** The whole command line: every command, its options and the program-wide log options. */
export function buildProgram(): Command {
  const program = new Command()
    .name('helpdesk-sync')
    .description('Incremental sync of the Helpdesk API into warehouse-ready JSONL, and hours/holidays as code.')
    .version(VERSION)
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    // Before the commands are added, so each inherits it: a usage mistake follows the log form.
    .configureOutput(usageErrorOutput(process.argv, process.env));
  for (const option of logOptions()) program.addOption(option);
  program.hook('preAction', () => {
    useLogSettings(program.opts());
    warningsAsEvents();
  });
  registerCommands(program);
  return program;
}
