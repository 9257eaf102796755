import type { OutputConfiguration } from 'commander';
import { ExitCode } from '../errors.js';
import { createLogger, type LogFormat, resolveLogFormat } from '../log.js';

/**
 * The log form a command line asks for, read from the words themselves: a usage mistake is
 * found while they are parsed, before the parsed `--log-format` is known. `--log-format json`,
 * `--log-format=json`, else HELPDESK_SYNC_LOG_FORMAT, else `auto` (docs/operations.md, "Logs").
 */
export function askedLogFormat(argv: readonly string[], env: NodeJS.ProcessEnv): LogFormat {
  let asked: string | undefined;
  argv.forEach((word, i) => {
    if (word === '--log-format') asked = argv[i + 1];
    else if (word.startsWith('--log-format=')) asked = word.slice('--log-format='.length);
  });
  asked ??= env.HELPDESK_SYNC_LOG_FORMAT;
  return resolveLogFormat(asked === 'human' || asked === 'json' ? asked : undefined);
}

/**
 * Where commander writes a usage mistake (an unknown option, a missing argument): as it does on
 * a terminal, and with JSON logs one `command.failed` JSON line (code `USAGE`, exit 64) in place
 * of its text, and no help after it, so every line on stderr stays JSON.
 */
export function usageErrorOutput(argv: readonly string[], env: NodeJS.ProcessEnv): OutputConfiguration {
  if (askedLogFormat(argv, env) !== 'json') return {};
  return {
    writeErr: (text) => {
      // Commander's own message starts `error: `; the help it adds after it is for a person.
      if (!text.startsWith('error: ')) return;
      const message = text.slice('error: '.length).trim();
      createLogger({ format: 'json' }).fatal(
        { event: 'command.failed', code: 'USAGE', message, exit_code: ExitCode.usage },
        'command failed (USAGE)',
      );
    },
  };
}
