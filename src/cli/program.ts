import { Command } from 'commander';
import { VERSION } from '../version.js';
import { logOptions, useLogSettings, warningsAsEvents } from './cli-logger.js';
import { noteConfigChoice } from './command-context.js';
import { registerCommands } from './commands.js';
import { usageErrorOutput } from './usage-error-output.js';

/** The whole command line: every command, its options and the program-wide log options. */
export function buildProgram(): Command {
  const program = new Command()
    .name('helpdesk-sync')
    .description('Incremental sync of the Helpdesk API into warehouse-ready JSONL, and hours/holidays as code.')
    .version(VERSION)
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    // Before the commands are added, so each inherits it: a usage mistake follows the log form.
    .configureOutput(usageErrorOutput(process.argv, process.env));
  for (const option of logOptions()) program.addOption(option);
  program.hook('preAction', (_, action) => {
    useLogSettings(program.opts());
    warningsAsEvents();
    noteConfigChoice(action.opts().config, action.getOptionValueSource('config'));
  });
  registerCommands(program);
  pointToHelpAfterErrors(program);
  return program;
}

/**
 * A usage mistake is said in one line, commander's "(Did you mean …?)" after it
 * when a known name is near, and a pointer to the command's help instead of the
 * whole of it, which would push the mistake off the screen.
 */
function pointToHelpAfterErrors(command: Command, name = command.name()): void {
  command.showHelpAfterError(`(${name} --help lists what it takes)`);
  for (const sub of command.commands) pointToHelpAfterErrors(sub, `${name} ${sub.name()}`);
}
