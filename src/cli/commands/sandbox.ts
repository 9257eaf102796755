import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import {
  DEFAULT_CONVERSATIONS,
  FaultSpecError,
  MAX_ORGANIZATIONS,
  OrganizationSizesError,
  parseFaults,
  parseOrganizationSizes,
  parseQuirks,
  QUIRK_NAMES,
  QuirkSpecError,
  SANDBOX_TOKENS,
  type SandboxOptions,
  startSandbox,
} from '../../sandbox/start.js';
import { cliLogger } from '../cli-logger.js';
import { runCommand } from '../run-command.js';

interface SandboxFlags {
  host: string;
  port: string;
  seed: string;
  /** No commander default, so that one given next to --organizations can be told apart. */
  conversations?: string;
  organizations?: string;
  rateLimit: string;
  rateWindow: string;
  faults?: string;
  quirks?: string;
}

function wholeNumber(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `from ${min} up` : `from ${min} to ${max}`;
    throw new UsageError(`${flag}: expected a whole number ${range}, got "${value}"`);
  }
  return n;
}

/** --organizations 1000,300,50: conversations per organization, in place of --conversations. */
function organizationsFromFlags(flags: SandboxFlags): number[] | undefined {
  if (flags.organizations === undefined) return undefined;
  if (flags.conversations !== undefined) {
    throw new UsageError(
      '--conversations and --organizations do not combine: use --organizations alone, one count per organization (e.g. --organizations 1000,300,50), or --conversations alone',
    );
  }
  try {
    return parseOrganizationSizes(flags.organizations);
  } catch (error) {
    if (error instanceof OrganizationSizesError)
      throw new UsageError(`--organizations: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Checks every flag; the first bad one is a UsageError (exit 64). */
export function sandboxOptionsFromFlags(flags: SandboxFlags): SandboxOptions {
  if (flags.host.trim() === '') throw new UsageError('--host: expected a host name or address');
  if (flags.faults !== undefined) {
    try {
      parseFaults(flags.faults);
    } catch (error) {
      if (error instanceof FaultSpecError) throw new UsageError(`--faults: ${error.message}`, { cause: error });
      throw error;
    }
  }
  const organizations = organizationsFromFlags(flags);
  if (flags.quirks !== undefined) {
    try {
      parseQuirks(flags.quirks);
    } catch (error) {
      if (error instanceof QuirkSpecError) throw new UsageError(`--quirks: ${error.message}`, { cause: error });
      throw error;
    }
  }
  return {
    host: flags.host,
    port: wholeNumber('--port', flags.port, 0, 65535),
    seed: wholeNumber('--seed', flags.seed, 0),
    ...(organizations
      ? { organizations }
      : { conversations: wholeNumber('--conversations', flags.conversations ?? String(DEFAULT_CONVERSATIONS), 0) }),
    rateLimit: wholeNumber('--rate-limit', flags.rateLimit, 1),
    rateWindowSeconds: wholeNumber('--rate-window', flags.rateWindow, 1),
    ...(flags.faults === undefined ? {} : { faults: flags.faults }),
    ...(flags.quirks === undefined ? {} : { quirks: flags.quirks }),
  };
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `helpdesk-sync sandbox`: runs the fake Helpdesk API until SIGINT/SIGTERM (docs/sandbox.md). */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the sandbox Helpdesk API (in-memory, seeded data) for tests and demos')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', '4010')
    .option('--seed <n>', 'seed of the generated data', '1')
    .option('--conversations <n>', `number of seeded conversations (default: ${DEFAULT_CONVERSATIONS})`)
    .option(
      '--organizations <sizes>',
      `conversations per organization, e.g. 1000,300,50 (at most ${MAX_ORGANIZATIONS}; instead of --conversations)`,
    )
    .option('--rate-limit <n>', 'requests per window per client IP', '300')
    .option('--rate-window <seconds>', 'rate-limit window in seconds', '60')
    .option('--faults <spec>', 'injected faults, e.g. 500:0.05,reset:0.02,slow:0.05:2000,429:0.02')
    .option(
      '--quirks <list>',
      `ways to differ from the kind default, e.g. trash-hidden,search-cap:30 (${QUIRK_NAMES.join(', ')})`,
    )
    .action((flags: SandboxFlags) =>
      runCommand(async () => {
        const options = sandboxOptionsFromFlags(flags);
        const logger = cliLogger('info', { humanLevel: 'info' });
        const sandbox = await startSandbox({ ...options, logger });
        // Listening for the signals before the banner: a script that waits for the banner and
        // then sends SIGINT may do so before the next line runs.
        const stopped = untilSignal();
        const out = process.stdout;
        out.write(`Sandbox Helpdesk API listening on ${sandbox.baseUrl}\n`);
        out.write(`Tokens: ${Object.keys(SANDBOX_TOKENS).join(', ')}\n`);
        if (options.organizations !== undefined) {
          const each = sandbox.organizations.map(
            (o) => `${o.slug} ${o.conversations} (${o.tokens.admin}, ${o.tokens.agent})`,
          );
          out.write(`Organizations: ${each.join('; ')}\n`);
        }
        if (options.quirks !== undefined) out.write(`Quirks: ${parseQuirks(options.quirks).names.join(', ')}\n`);
        if (sandbox.offsite) out.write(`Other origin (offsite-redirect): ${sandbox.offsite.origin}\n`);
        out.write(`Stats: ${sandbox.origin}/_sandbox/stats  Clock: ${sandbox.origin}/_sandbox/clock\n`);
        const signal = await stopped;
        out.write(`${signal}: stopping the sandbox\n`);
        await sandbox.close();
        return 0;
      }),
    );
}
