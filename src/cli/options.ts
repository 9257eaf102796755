import { STREAM_NAMES, type StreamName } from '../config/schema.js';
import { UsageError } from '../errors.js';

/** Parses a comma-separated stream list; an unknown name is a usage error naming the valid ones. */
export function parseStreamList(value: string, flag: string): StreamName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(STREAM_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new UsageError(`${flag}: unknown stream(s) ${unknown.join(', ')}; valid: ${STREAM_NAMES.join(', ')}`);
  }
  if (names.length === 0) throw new UsageError(`${flag}: list at least one stream`);
  return names as StreamName[];
}

/** Installs SIGINT/SIGTERM handlers that abort a controller; returns the exit code to use and a disposer. */
export function abortOnSignals(controller: AbortController): { signalExitCode(): number | undefined; dispose(): void } {
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      // A second signal means "now": the state stays consistent because only whole checkpoints commit.
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    received = signal;
    process.stderr.write(`${signal}: finishing what is complete and committing it (send again to stop at once)\n`);
    controller.abort(new Error(`received ${signal}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signalExitCode: () => (received === 'SIGINT' ? 130 : received === 'SIGTERM' ? 143 : undefined),
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
