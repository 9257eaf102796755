import pino, { type DestinationStream, type Logger } from 'pino';
import { hasSecrets, REDACTED, redactDeep, scrubSecrets } from './redact.js';

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

export interface LoggerOptions {
  /** The config's `log.level`; the LOG_LEVEL environment variable overrides it. @default info */
  level?: string;
  /** Where JSON lines go. @default stderr (pretty when stderr is a TTY) */
  destination?: DestinationStream;
  pretty?: boolean;
}

/** Root logger: JSON to stderr, pretty on a TTY, secrets redacted by path and by value. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = process.env.LOG_LEVEL || options.level || 'info';
  const base: pino.LoggerOptions = {
    level,
    base: { name: 'helpdesk-sync' },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: { log: (obj) => (hasSecrets() ? (redactDeep(obj) as Record<string, unknown>) : obj) },
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
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !process.env.CI);
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true } } });
  }
  return pino(base, pino.destination({ dest: 2, sync: true }));
}

/** A logger that discards everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
