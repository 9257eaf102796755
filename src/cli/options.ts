import { Option } from 'commander';
import { DEFAULT_CONFIG_PATH } from '../config/load.js';
import type { StreamName } from '../config/schema.js';
import { ExitCode } from '../errors.js';
import { checkStreamNames } from '../streams/check-stream-names.js';
import { cliLogger, logsAreJson, processTerminal } from './cli-logger.js';

/** Where a command reads its config: --config, else $HELPDESK_SYNC_CONFIG, else config/helpdesk-sync.yaml. */
export const CONFIG_ENV = 'HELPDESK_SYNC_CONFIG';

export function configOption(): Option {
  return new Option('-c, --config <file>', 'config file').env(CONFIG_ENV).default(DEFAULT_CONFIG_PATH);
}

/** Parses a comma-separated stream list; an unknown name is a usage error naming the valid ones. */
export function parseStreamList(value: string, flag: string): StreamName[] {
  return checkStreamNames(
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    flag,
  );
}

/** Installs SIGINT/SIGTERM handlers that abort a controller; returns the exit code to use and a disposer. */
export function abortOnSignals(controller: AbortController): { signalExitCode(): number | undefined; dispose(): void } {
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      // A second signal means "now": the state stays consistent because only whole checkpoints commit.
      process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
    }
    received = signal;
    const notice = `${signal}: finishing what is complete and committing it (send again to stop at once)`;
    // With JSON logs, a JSON line like every other event on stderr.
    if (logsAreJson()) cliLogger('info').warn({ event: 'command.signal', signal }, notice);
    else processTerminal().logLine(notice);
    controller.abort(new Error(`received ${signal}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signalExitCode: () =>
      received === 'SIGINT' ? ExitCode.sigint : received === 'SIGTERM' ? ExitCode.sigterm : undefined,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
