import { ConfigError, ExitCode, HelpdeskSyncError } from '../errors.js';
import { scrubSecrets } from '../redact.js';
import { cliLogger, logsAreJson } from './cli-logger.js';

/**
 * Maps an error that ended a command to its exit code (docs/operations.md) and prints
 * one clear message to stderr. Typed errors carry their own exit code; anything
 * else is a failure (1). Secrets are scrubbed from whatever is printed.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof HelpdeskSyncError) return error.exitCode;
  return ExitCode.failure;
}

export function describeError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof HelpdeskSyncError) return `${error.name} [${error.code}]: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Runs a command action; sets process.exitCode instead of exiting so streams flush. */
export async function runCommand(action: () => Promise<number | undefined>): Promise<void> {
  try {
    const code = await action();
    process.exitCode = code ?? ExitCode.ok;
  } catch (error) {
    sayError(error);
    process.exitCode = exitCodeFor(error);
  }
}

/**
 * Prints one error the way a command's end does, secrets scrubbed, in the form of the logs: a
 * line of text, or with JSON logs one JSON line like every other event (`command.failed` with the
 * error's `code` and `message`, no class name), so a collector of stderr parses every line.
 * `account`: the account of a config that lists several whose part failed.
 */
export function sayError(error: unknown, account?: string): void {
  if (!logsAreJson()) {
    process.stderr.write(
      `${account === undefined ? '' : `account ${account}: `}${scrubSecrets(describeError(error))}\n`,
    );
    return;
  }
  const { code, message } = codeAndMessage(error);
  const issues = error instanceof ConfigError ? { issues: error.issues } : {};
  cliLogger('info').fatal(
    {
      event: 'command.failed',
      ...(account === undefined ? {} : { account }),
      code,
      message: scrubSecrets(message),
      exit_code: exitCodeFor(error),
      ...issues,
    },
    `command failed (${code})`,
  );
}

/** The error's stable code (`FAILED` for one that is not the connector's) and its message. */
function codeAndMessage(error: unknown): { code: string; message: string } {
  if (error instanceof HelpdeskSyncError) return { code: error.code, message: error.message };
  return { code: 'FAILED', message: error instanceof Error ? error.message : String(error) };
}
