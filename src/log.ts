import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Known secret values (tokens, keys) scrubbed from every log line, wherever they appear. */
const secrets = new Set<string>();

/** Registers a secret so no log line can contain it. Short values are ignored (too many false hits). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) secrets.add(value);
}

/** Replaces every registered secret in a string with [REDACTED]. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out;
}

function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v, depth + 1);
  return out;
}

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
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    formatters: { log: (obj) => (secrets.size === 0 ? obj : (scrubDeep(obj) as Record<string, unknown>)) },
    hooks: {
      logMethod(args, method) {
        if (secrets.size > 0) {
          for (let i = 0; i < args.length; i++) {
            if (typeof args[i] === 'string') args[i] = scrubSecrets(args[i] as string);
          }
        }
        method.apply(this, args as Parameters<typeof method>);
      },
    },
    serializers: { err: (e: unknown) => scrubDeep(pino.stdSerializers.err(e as Error)) as pino.SerializedError },
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
