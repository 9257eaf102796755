import { ConfigError, ConfigNotFoundError, ExitCode, HelpdeskSyncError } from '../errors.js';
import { errnoOf } from '../path-problem.js';
import { scrubSecrets } from '../redact.js';
import { cliLogger, logsAreJson } from './cli-logger.js';
import { type CommandContext, commandContext } from './command-context.js';
import { exampleConfigPath } from './example-config.js';
import { configChoice, nextStep } from './next-step.js';

/**
 * Maps an error that ended a command to its exit code (docs/operations.md). Typed
 * errors carry their own exit code; anything else is a failure (1).
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof HelpdeskSyncError) return error.exitCode;
  return ExitCode.failure;
}

/** How a command's errors are said: the command's context, and the status table's hint of an API error. */
export interface DescribeOptions {
  context?: CommandContext;
  apiHint?: (error: unknown) => string | undefined;
  /** The example config to copy, as a path to type. @default exampleConfigPath() */
  example?: () => string;
}

/**
 * `Invalid configuration in …` reads `invalid configuration in …` after `error [CODE]: `;
 * a name written in capitals (`GET …`, `DuckDB …`, `PostgreSQL …`) stays as it is.
 */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]*(?![A-Za-z])/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text;
}

/** What happened, in the error's own words, and its stable code: ours, or a system error's errno. */
function headline(error: unknown, context: CommandContext): { code?: string; what: string } {
  if (error instanceof ConfigNotFoundError) {
    return { code: error.code, what: `${error.message} (${configChoice(error.path, context)})` };
  }
  if (error instanceof HelpdeskSyncError) {
    // An API error's message ends its first part with its code, said in brackets here already.
    return { code: error.code, what: error.message.replace(` (${error.code})`, '') };
  }
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return { code, what: code ? message.replace(`${code}: `, '') : message };
}

/**
 * An error that ended a command as a person reads it: `error [CODE]: what
 * happened` (the stable code where one exists, never a class name), then, indented,
 * what to do when the message does not say it already (nextStep).
 */
export function describeError(error: unknown, options: DescribeOptions = {}): string {
  const { code, what } = headline(error, options.context ?? {});
  const head = `error${code ? ` [${code}]` : ''}: ${lowerFirst(what)}`;
  return [head, ...nextSteps(error, options).map((s) => `  ${s}`)].join('\n');
}

/** What to do about an error, when its message does not say it (nextStep): the lines under its headline. */
export function nextSteps(error: unknown, options: DescribeOptions = {}): string[] {
  // A config error's lines already say what to change, one problem each.
  if (error instanceof ConfigError && !(error instanceof ConfigNotFoundError)) return [];
  const context = options.context ?? {};
  const facts = {
    code: headline(error, context).code,
    url: (error as { url?: unknown } | null)?.url as string | undefined,
    path: error instanceof ConfigNotFoundError ? error.path : undefined,
  };
  return nextStep(facts, context, {
    example: options.example ?? exampleConfigPath,
    apiHint: options.apiHint && (() => options.apiHint?.(error)),
  });
}

/** The status table's hint of an API error (src/api/errors/status-table.ts), loaded only when one is said. */
export async function apiHintFor(error: unknown): Promise<DescribeOptions['apiHint']> {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('API_')) return undefined;
  // Already in memory: the request that failed loaded the API layer.
  const { hintFor } = await import('../api/index.js');
  return (e) => hintFor(e);
}

/** Runs a command action; sets process.exitCode instead of exiting so streams flush. */
export async function runCommand(action: () => Promise<number | undefined>): Promise<void> {
  try {
    const code = await action();
    process.exitCode = code ?? ExitCode.ok;
  } catch (error) {
    await sayError(error);
    process.exitCode = exitCodeFor(error);
  }
}

/**
 * Prints one error the way a command's end does, secrets scrubbed, in the form of the logs: the
 * text of describeError, or with JSON logs one JSON line like every other event (`command.failed`
 * with the error's `code`, `message` and `next_steps`, no class name), so a collector of stderr
 * parses every line. `account`: the account of a config that lists several whose part failed.
 */
export async function sayError(error: unknown, account?: string): Promise<void> {
  const options: DescribeOptions = { context: commandContext(), apiHint: await apiHintFor(error) };
  if (!logsAreJson()) {
    const text = describeError(error, options);
    process.stderr.write(`${account === undefined ? '' : `account ${account}: `}${scrubSecrets(text)}\n`);
    return;
  }
  const { code, what } = headline(error, options.context ?? {});
  const issues = error instanceof ConfigError ? { issues: error.issues } : {};
  cliLogger('info').fatal(
    {
      event: 'command.failed',
      ...(account === undefined ? {} : { account }),
      code: code ?? 'FAILED',
      message: scrubSecrets(what),
      next_steps: nextSteps(error, options).map(scrubSecrets),
      exit_code: exitCodeFor(error),
      ...issues,
    },
    `command failed (${code ?? 'FAILED'})`,
  );
}
