import { Option } from 'commander';
import type { ParsedConfigFile } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors.js';

/** `--account <name>`: one account of a config that lists several. */
export function accountOption(): Option {
  return new Option('--account <name>', 'with a config that lists accounts: this account only (default: every one)');
}

/**
 * The accounts a command acts on: every account of the file, or the one
 * `--account` names (a usage error, naming the accounts, when it names none of
 * them, or when the file lists no accounts). `one`: the command acts on one
 * account only, so a file of several needs `--account`.
 */
export function selectAccounts(parsed: ParsedConfigFile, name: string | undefined, one = false): Config[] {
  if (!parsed.several) {
    if (name !== undefined) throw new UsageError('--account goes with a config that lists accounts:');
    return parsed.accounts;
  }
  const names = parsed.accounts.map((a) => a.account?.name ?? '');
  if (name === undefined) {
    if (one) throw new UsageError(`this config lists accounts: name one with --account (${names.join(', ')})`);
    return parsed.accounts;
  }
  const found = parsed.accounts.find((a) => a.account?.name === name);
  if (!found) throw new UsageError(`--account: no account named "${name}" (the config lists ${names.join(', ')})`);
  return [found];
}

/** What a command prints before an account's part of its output, when the file lists several. */
export function accountHeading(config: Config): string {
  return config.account ? `account ${config.account.name}\n` : '';
}

/** How one account's part of a command ended: its exit code, or the error that ended it. */
export interface AccountRun {
  account: string;
  code?: number;
  error?: unknown;
}

/**
 * Runs a command's work for each account in turn, under its heading. With one
 * account (a file without accounts:) its error ends the command as always; with
 * several, an account's error is said (`sayError`) and the next account runs,
 * so one account's failure leaves the others done.
 */
export async function eachAccount(
  accounts: readonly Config[],
  run: (config: Config) => Promise<number>,
  sayError: (error: unknown, account?: string) => void | Promise<void>,
): Promise<AccountRun[]> {
  const several = accounts.some((a) => a.account !== undefined);
  const runs: AccountRun[] = [];
  for (const config of accounts) {
    const account = config.account?.name ?? '';
    process.stdout.write(accountHeading(config));
    if (!several) {
      runs.push({ account, code: await run(config) });
      continue;
    }
    try {
      runs.push({ account, code: await run(config) });
    } catch (error) {
      await sayError(error, account);
      runs.push({ account, error });
    }
  }
  return runs;
}
