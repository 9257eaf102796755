import type { Command, Option } from 'commander';

/** Widest synopsis line before an option moves to the next line. */
const WIDTH = 100;

/** `--config FILE`, `--format a|b|c`, `--full-refresh [LIST]`, `--load`: an option as a synopsis shows it. */
function optionWord(option: Option): string {
  const name = option.long ?? option.short ?? option.flags;
  const value = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1];
  const shown = option.argChoices ? option.argChoices.join('|') : value?.toUpperCase();
  const arg = !shown ? '' : option.required ? ` ${shown}` : ` [${shown}]`;
  return `[${name}${arg}]`;
}

function argumentWords(command: Command): string[] {
  return command.registeredArguments.map((a) => (a.required ? a.name().toUpperCase() : `[${a.name().toUpperCase()}]`));
}

/** One command's synopsis, wrapped under its first word. */
function commandLines(words: string[], head: string, indent: number): string[] {
  const lines: string[] = [];
  let line = head.padEnd(indent - 1);
  for (const word of words) {
    if (line.trim().length > head.length && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(indent - 1);
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * README's synopsis, read off the command line's own definitions (the same ones
 * `--help` prints), so the two cannot drift: one entry per command (a command
 * with subcommands, `state`, one per subcommand), each with its arguments and
 * options; the program-wide options on a line of their own.
 */
export function synopsis(program: Command): string {
  const name = program.name();
  const commands = program.commands.filter((c) => c.name() !== 'help');
  const entries = commands.flatMap((c) =>
    c.commands.length > 0
      ? c.commands.filter((s) => s.name() !== 'help').map((s) => ({ head: `${name} ${c.name()} ${s.name()}`, cmd: s }))
      : [{ head: `${name} ${c.name()}`, cmd: c }],
  );
  const indent = Math.max(...entries.map((e) => e.head.length)) + 2;
  const lines = entries.flatMap(({ head, cmd }) =>
    commandLines(
      [...argumentWords(cmd), ...cmd.options.filter((o) => !o.hidden && o.long !== '--help').map(optionWord)],
      head,
      indent,
    ),
  );
  const globals = program.options.filter((o) => o.long !== '--version' && o.long !== '--help').map(optionWord);
  lines.push(...commandLines(globals, `${name} COMMAND`, indent));
  return lines.join('\n');
}
