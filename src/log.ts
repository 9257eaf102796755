import pino, { type DestinationStream, type Logger } from 'pino';
import { hasSecrets, REDACTED, redactDeep, scrubSecrets } from './redact.js';
import { humanLogLine, levelValue } from './terminal/human-log-line.js';

export type { Logger } from 'pino';

/** Paths pino blanks whatever their value (headers, config). */
const REDACT_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'Authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'options.headers.authorization',
  'source.token',
  'config.source.token',
];

export type LogFormat = 'json' | 'human';

export interface LoggerOptions {
  /** The config's `log.level`; the LOG_LEVEL environment variable overrides it. @default info */
  level?: string;
  /** Where JSON lines go (tests). @default stderr */
  destination?: DestinationStream;
  /**
   * `json`: pino JSON lines on stderr. `human`: one short line per warning or error,
   * for a person at a terminal (docs/operations.md, "Logs").
   * @default human when stderr is a terminal outside CI, else json
   */
  format?: LogFormat;
  /** Where each stderr line goes, in either format (the terminal writes it above a live block). @default stderr */
  writeLine?: (line: string) => void;
  /** `human`: the least level shown. @default warn */
  humanLevel?: string;
  /** JSON lines also appended to this file, at `level`, whatever the format. */
  file?: string;
}

/**
 * The form of the logs on stderr: the one asked for, else human on a terminal outside CI and
 * JSON elsewhere (docs/operations.md, "Logs"). What else the process writes follows it: with
 * JSON logs no progress is drawn or printed, the fatal error is a JSON line too.
 */
export function resolveLogFormat(format?: LogFormat): LogFormat {
  return format ?? (process.stderr.isTTY === true && !process.env.CI ? 'human' : 'json');
}

/**
 * Events for the JSON form only: their content is the run's own line or the progress a terminal
 * draws. The human form says one line per run (the daemon's `daemon.job_finished`, the command's
 * printed summary), not each manifest and summary beside it.
 */
const JSON_ONLY_EVENTS = new Set([
  'sync.summary',
  'output.manifest',
  'load.manifest',
  'load.summary',
  'daemon.accounts',
]);

/** Whether a record is left out of the human form: progress (the live block draws it) and the events above. */
export function isJsonOnly(record: Record<string, unknown>): boolean {
  const event = String(record.event ?? '');
  return event.endsWith('.progress') || JSON_ONLY_EVENTS.has(event);
}

/** Root logger: JSON or short human lines on stderr, secrets redacted by path and by value. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = process.env.LOG_LEVEL || options.level || 'info';
  const base: pino.LoggerOptions = {
    level,
    base: { name: 'helpdesk-sync' },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: {
      // Runs before the serializers: an Error is serialized here first, or redactDeep, which
      // copies own enumerable properties, would drop its message and stack.
      log: (obj) => (hasSecrets() ? (redactDeep(serializeErr(obj)) as Record<string, unknown>) : obj),
    },
    hooks: {
      logMethod(args, method) {
        if (hasSecrets()) {
          for (let i = 0; i < args.length; i++) {
            if (typeof args[i] === 'string') args[i] = scrubSecrets(args[i] as string);
          }
        }
        method.apply(this, args as Parameters<typeof method>);
      },
    },
    serializers: { err: (e: unknown) => redactDeep(pino.stdSerializers.err(e as Error)) as pino.SerializedError },
  };
  if (options.destination) return pino(base, options.destination);
  const format = resolveLogFormat(options.format);
  const streams: pino.StreamEntry[] = [];
  if (options.writeLine) {
    const least = format === 'human' ? Math.max(levelValue(options.humanLevel ?? 'warn'), levelValue(level)) : 0;
    streams.push({ level: 'trace', stream: lineDestination(options.writeLine, format, least) });
  } else if (format === 'human') {
    const least = Math.max(levelValue(options.humanLevel ?? 'warn'), levelValue(level));
    streams.push({ level: 'trace', stream: lineDestination((l) => process.stderr.write(`${l}\n`), format, least) });
  } else {
    streams.push({ level: 'trace', stream: pino.destination({ dest: 2, sync: true }) });
  }
  if (options.file) {
    streams.push({
      level: 'trace',
      stream: pino.destination({ dest: options.file, append: true, mkdir: true, sync: true }),
    });
  }
  return pino(base, pino.multistream(streams));
}

/** A pino destination handing each line to `say`: as is (json), or at `least` and above as one short human line. */
function lineDestination(say: (line: string) => void, format: LogFormat, least: number): DestinationStream {
  return {
    write(chunk: string) {
      for (const text of chunk.split('\n')) {
        if (!text) continue;
        if (format === 'json') {
          say(text);
          continue;
        }
        const record = JSON.parse(text) as Record<string, unknown>;
        if (isJsonOnly(record)) continue;
        if (Number(record.level) >= least) say(humanLogLine(record));
      }
    },
  };
}

function serializeErr(obj: Record<string, unknown>): Record<string, unknown> {
  return obj.err instanceof Error ? { ...obj, err: pino.stdSerializers.err(obj.err) } : obj;
}

/** A logger that discards everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
