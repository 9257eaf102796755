import { Option } from 'commander';
import { UsageError } from '../errors.js';
import type { LiveProgressOptions } from '../live-progress.js';
import { createLogger, type LogFormat, type Logger, resolveLogFormat } from '../log.js';
import { createTerminal, type Terminal } from '../terminal/terminal.js';

/** `--log-format`: `auto` is human on a terminal (outside CI), JSON elsewhere. */
export const LOG_FORMATS = ['auto', 'human', 'json'] as const;

interface LogSettings {
  format: (typeof LOG_FORMATS)[number];
  file?: string;
}

let settings: LogSettings = { format: 'auto' };
let terminal: Terminal | undefined;

/** The options every command reads for its logs (program-wide, accepted before or after the command). */
export function logOptions(): Option[] {
  return [
    new Option('--log-format <format>', 'logs on stderr: human (short lines) or json (pino JSON lines)')
      .choices(LOG_FORMATS)
      .env('HELPDESK_SYNC_LOG_FORMAT')
      .default('auto'),
    new Option('--log-file <file>', 'also append every log event as JSON lines to this file').env(
      'HELPDESK_SYNC_LOG_FILE',
    ),
  ];
}

/** Called once the command line is parsed (a preAction hook). */
export function useLogSettings(opts: { logFormat?: string; logFile?: string }): void {
  const format = (opts.logFormat ?? 'auto') as LogSettings['format'];
  if (!LOG_FORMATS.includes(format)) throw new UsageError(`--log-format: expected one of ${LOG_FORMATS.join(', ')}`);
  settings = { format, ...(opts.logFile ? { file: opts.logFile } : {}) };
}

/**
 * With JSON logs, a warning of the process (Node's or a dependency's `process.emitWarning`, such as
 * the AWS SDK's on a Node it no longer supports) is a `process.warning` JSON line like every other
 * event, not Node's own text line among them. Node prints warnings from a listener of its own on
 * `warning`; that one is replaced. Called once the command line is parsed (the program's preAction).
 */
export function warningsAsEvents(): void {
  if (!logsAreJson()) return;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    cliLogger('info').warn(
      { event: 'process.warning', warning: warning.name, message: warning.message },
      `${warning.name}: ${warning.message}`,
    );
  });
}

/** The process's terminal (stdout, stderr): one, so log lines and the live block take turns. */
export function processTerminal(): Terminal {
  terminal ??= createTerminal({ stdout: process.stdout, stderr: process.stderr });
  return terminal;
}

/**
 * A command's logger: the config's level, the format and file of the command
 * line. In human form it shows warnings and errors (`humanLevel`), written above
 * the live block; the structured events (progress, manifest, summary) go to the
 * JSON form only: `--log-format json`, `--log-file`, or stderr that is not a
 * terminal (docs/operations.md, "Logs").
 */
export function cliLogger(level: string, options: { humanLevel?: string } = {}): Logger {
  const format: LogFormat | undefined = settings.format === 'auto' ? undefined : settings.format;
  const term = processTerminal();
  return createLogger({
    level,
    format,
    file: settings.file,
    humanLevel: options.humanLevel,
    writeLine: (line) => term.logLine(line),
  });
}

/** Whether this process logs JSON lines on stderr (`--log-format json`, or `auto` off a terminal or in CI). */
export function logsAreJson(): boolean {
  return resolveLogFormat(settings.format === 'auto' ? undefined : settings.format) === 'json';
}

/**
 * A live progress on the process's terminal: the live block there, else one line on stdout at a
 * steady interval. With JSON logs, neither: the `sync.progress` events on stderr are the progress,
 * so a collector reading stdout and stderr as one (`2>&1`) gets no human line between JSON lines,
 * and stdout carries only the command's result (docs/operations.md, "Logs").
 */
export function liveProgressOptions(logger: Logger): LiveProgressOptions {
  if (logsAreJson()) return { logger };
  const term = processTerminal();
  if (term.interactive) return { live: term.openLive(), logger };
  return { logger, print: (text) => term.print(text) };
}
