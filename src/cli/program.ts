import { Command } from 'commander';
import { VERSION } from '../version.js';
import { logOptions, useLogSettings } from './cli-logger.js';
import { noteConfigChoice } from './command-context.js';
import { registerCommands } from './commands.js';

/** The whole command line: every command, its options and the program-wide log options. */
export function buildProgram(): Command {
  const program = new Command()
    .name('helpdesk-sync')
    .description('Incremental sync of the Helpdesk API into warehouse-ready JSONL, and hours/holidays as code.')
    .version(VERSION)
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();
  for (const option of logOptions()) program.addOption(option);
  program.hook('preAction', (_, action) => {
    useLogSettings(program.opts());
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
