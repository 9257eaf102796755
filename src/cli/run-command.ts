import { ConfigError, ExitCode, HelpdeskSyncError } from '../errors.js';
import { scrubSecrets } from '../redact.js';

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

/** Prints one error the way a command's end does: one line, secrets scrubbed. */
export function sayError(error: unknown): void {
  process.stderr.write(`${scrubSecrets(describeError(error))}\n`);
}
