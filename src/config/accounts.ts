import { posix } from 'node:path';
import type { ConfigIssue } from '../errors.js';
import { defaultLoadTarget } from './default-load-target.js';
import { loadTargetText } from './load-target.js';
import type { Config, ConfigFile } from './schema.js';
import { stateLocation } from './state-location.js';

/**
 * Where an account's state lives: in a folder named after it beside the
 * configured state (`.helpdesk-sync/state.sqlite` → `.helpdesk-sync/acme/state.sqlite`,
 * `s3://b/helpdesk/state.sqlite` → `s3://b/helpdesk/acme/state.sqlite`), so each
 * account has its own state, lock and spool, and adding or removing an account
 * touches no other's.
 */
export function accountStatePath(statePath: string, account: string): string {
  const location = stateLocation(statePath);
  if (location.kind === 's3') {
    const dir = posix.dirname(location.key);
    const key = `${dir === '.' ? '' : `${dir}/`}${account}/${posix.basename(location.key)}`;
    return `s3://${location.bucket}/${key}`;
  }
  const slash = Math.max(statePath.lastIndexOf('/'), statePath.lastIndexOf('\\'));
  return slash < 0
    ? `${account}/${statePath}`
    : `${statePath.slice(0, slash + 1)}${account}/${statePath.slice(slash + 1)}`;
}

/** Where an account's output goes under the destination: its name as the first folder of every key. */
export function accountPrefix(prefix: string, account: string): string {
  const base = prefix.replace(/\/+$/, '');
  return base === '' ? account : `${base}/${account}`;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The problems of `accounts:` that span entries or fields, as config messages,
 * read from the file's tree (defensively, so they are reported with the
 * schema's): `source.base_url`/`source.token` beside it (they move into each
 * entry), a name listed twice, one account listed twice (the same base URL and
 * token). Without `accounts:`, `source.base_url` and `source.token` are required.
 */
export function accountIssues(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const accounts = field(raw, 'accounts');
  const source = field(raw, 'source');
  if (accounts === undefined) {
    for (const key of ['base_url', 'token'] as const) {
      if (field(source, key) === undefined)
        issues.push({ path: `source.${key}`, message: 'required (or list accounts:)' });
    }
    if (field(field(raw, 'push'), 'accounts') !== undefined) {
      issues.push({ path: 'push.accounts', message: 'names accounts of accounts:, which this config does not list' });
    }
    return issues;
  }
  for (const key of ['base_url', 'token'] as const) {
    if (field(source, key) !== undefined) {
      issues.push({ path: `source.${key}`, message: `with accounts:, each account has its own ${key}: move it there` });
    }
  }
  if (!Array.isArray(accounts)) return issues;
  const known = new Set(accounts.map((a: unknown) => field(a, 'name')));
  const pushTo = field(field(raw, 'push'), 'accounts');
  if (Array.isArray(pushTo)) {
    pushTo.forEach((name: unknown, i) => {
      if (typeof name === 'string' && !known.has(name)) {
        issues.push({ path: `push.accounts.${i}`, message: `no account is named "${name}"` });
      }
    });
  }
  const names = new Map<string, number>();
  const pairs = new Map<string, number>();
  accounts.forEach((account: unknown, i) => {
    const name = field(account, 'name');
    if (typeof name === 'string') {
      const named = names.get(name.toLowerCase());
      if (named !== undefined) {
        issues.push({ path: `accounts.${i}.name`, message: `"${name}" is the name of accounts.${named} too` });
      } else names.set(name.toLowerCase(), i);
    }
    const url = field(account, 'base_url');
    const token = field(account, 'token');
    if (typeof url !== 'string' || typeof token !== 'string') return;
    const pair = `${url.replace(/\/+$/, '')}\u0000${token}`;
    const same = pairs.get(pair);
    if (same !== undefined) {
      issues.push({
        path: `accounts.${i}`,
        message: `the same base_url and token as accounts.${same}: one account listed twice`,
      });
    } else pairs.set(pair, i);
  });
  return issues;
}

/**
 * The accounts a config file runs, each as a whole Config: a file without
 * `accounts:` is its one account, as written; a file with it gives each entry
 * the shared settings, its own base URL, token and streams, its own state
 * (accountStatePath), its own output prefix (accountPrefix) and its share. A
 * load target left to its default is the file's (beside its `state.path`), so
 * every account loads into one warehouse.
 */
export function resolveAccounts(file: ConfigFile): Config[] {
  const { accounts, source, ...rest } = file;
  if (!accounts) return [{ ...rest, source: source as Config['source'] }];
  const load = rest.load && rest.load.into === undefined ? loadWithDefault(rest.load, rest.state.path) : rest.load;
  return accounts.map((account) => ({
    ...rest,
    source: { ...source, base_url: account.base_url, token: account.token },
    streams: account.streams ?? rest.streams,
    state: { ...rest.state, path: accountStatePath(rest.state.path, account.name) },
    destination: { ...rest.destination, prefix: accountPrefix(rest.destination.prefix, account.name) },
    ...(load ? { load } : {}),
    account: { name: account.name, share: account.share },
  }));
}

function loadWithDefault(load: NonNullable<ConfigFile['load']>, statePath: string): ConfigFile['load'] {
  const fallback = defaultLoadTarget(statePath);
  return 'target' in fallback ? { ...load, into: loadTargetText(fallback.target) } : load;
}

/** The accounts `plan` and `apply` push to: every account, or those `push.accounts` names. */
export function pushAccounts(file: Pick<ConfigFile, 'push'>, accounts: readonly Config[]): Config[] {
  const only = file.push.accounts;
  return only ? accounts.filter((a) => a.account && only.includes(a.account.name)) : [...accounts];
}
