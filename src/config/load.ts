import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue, ConfigNotFoundError } from '../errors.js';
import { accountIssues, resolveAccounts } from './accounts.js';
import { baseUrlProblems } from './base-url-rules.js';
import { defaultLoadTarget } from './default-load-target.js';
import { didYouMean } from './did-you-mean.js';
import { type ConfigVariables, interpolateEnv, type VariableUse } from './interpolate.js';
import { knownKeysAt } from './known-keys.js';
import { type Config, type ConfigFile, configFileSchema } from './schema.js';
import { statePathProblems } from './state-location.js';

/** Default config path (see docs/configuration.md). */
export const DEFAULT_CONFIG_PATH = 'config/helpdesk-sync.yaml';

/**
 * A rule a layer above adds to validation: it reads the interpolated (not yet
 * validated) tree defensively, so its problems are reported with the schema's.
 * The output layer checks the privacy policy against its tables this way.
 */
export type ConfigRule = (raw: unknown, env: NodeJS.ProcessEnv) => ConfigIssue[];

/**
 * Turns zod issues into `path: message` lines (every problem at once, with its
 * path). `knownKeys` gives the keys accepted where an unknown key was found,
 * so each such key is said with the known one it is nearest to, if any
 * (`unknown key(s): tokne (did you mean token?)`); a value outside a list of
 * names, given as the issue's input, likewise.
 */
export function zodIssues(
  error: z.ZodError,
  prefix: string[] = [],
  knownKeys: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map(String)].join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(issue.path);
      message = `unknown key(s): ${issue.keys.map((key) => `${key}${didYouMean(key, known)}`).join(', ')}`;
    }
    // A value outside a list of names (a stream, a destination type): the name it is nearest to.
    if (issue.code === 'invalid_value' && typeof issue.input === 'string') {
      const names = issue.values.filter((v): v is string => typeof v === 'string');
      message += didYouMean(issue.input, names);
    }
    return { path, message };
  });
}

/** Reads a nested value of the not-yet-validated config tree. */
function at(raw: unknown, ...path: string[]): unknown {
  let value = raw;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/**
 * Rules that span fields. They read the raw tree (defensively) so they are
 * reported together with the schema's issues, in one message.
 */
function crossFieldIssues(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const insecure = at(raw, 'source', 'allow_insecure_http') === true;
  issues.push(...baseUrlIssues(at(raw, 'source', 'base_url'), 'source.base_url', insecure));
  const accounts = at(raw, 'accounts');
  if (Array.isArray(accounts)) {
    accounts.forEach((_, i) => {
      issues.push(...baseUrlIssues(at(raw, 'accounts', String(i), 'base_url'), `accounts.${i}.base_url`, insecure));
    });
  }
  const statePath = at(raw, 'state', 'path');
  if (typeof statePath === 'string') {
    for (const message of statePathProblems(statePath)) issues.push({ path: 'state.path', message });
  }
  const remote = typeof statePath === 'string' && /^s3:\/\//i.test(statePath);
  for (const setting of ['s3', 'cache_dir']) {
    if (at(raw, 'state', setting) !== undefined && !remote) {
      issues.push({ path: `state.${setting}`, message: 'applies only to a state.path of the form s3://bucket/key' });
    }
  }
  const load = at(raw, 'load');
  if (load !== undefined && at(raw, 'load', 'into') === undefined && typeof statePath === 'string') {
    const fallback = defaultLoadTarget(statePath);
    if ('problem' in fallback) issues.push({ path: 'load.into', message: fallback.problem });
  }
  if (at(raw, 'schedule', 'push') && !at(raw, 'push', 'holidays') && !at(raw, 'push', 'business_hours')) {
    issues.push({ path: 'schedule.push', message: 'needs push.holidays or push.business_hours to apply' });
  }
  return issues;
}

/** An API base URL's problems (https, no credentials, the /v1 prefix) at `path`. */
function baseUrlIssues(value: unknown, path: string, allowInsecureHttp: boolean): ConfigIssue[] {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (!url) return [];
  const problems = baseUrlProblems(url, allowInsecureHttp);
  if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) problems.push('must end in the version prefix /v1');
  return problems.map((message) => ({ path, message }));
}

/** A config file as validated: as written, and the Config of each account it runs. */
export interface ParsedConfigFile {
  file: ConfigFile;
  /** One Config per account (src/config/accounts.ts); one for a file without `accounts:`. */
  accounts: Config[];
  /** The file lists `accounts:` (each account has a name, its own state and output prefix). */
  several: boolean;
  /** The environment variables each value was read through, by path (`source.token` → HELPDESK_TOKEN). */
  variables: ConfigVariables;
}

/**
 * Validates an already-parsed config file. All problems, from interpolation,
 * schema and cross-field rules, come back in one ConfigError.
 */
export function parseConfigFile(
  raw: unknown,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
  rules: readonly ConfigRule[] = [],
): ParsedConfigFile {
  const issues: ConfigIssue[] = [];
  const variables = new Map<string, VariableUse[]>();
  const interpolated = interpolateEnv(raw ?? {}, env, issues, [], variables);
  // A missing variable is its value's problem: the schema's complaint about the
  // resulting empty string at the same path would only repeat it.
  const unset = new Set(issues.map((i) => i.path));
  // reportInput: the value of an issue, to name the valid one nearest to it (zodIssues); never printed.
  const result = configFileSchema.safeParse(interpolated, { reportInput: true });
  if (!result.success) {
    const known = (path: readonly PropertyKey[]) => knownKeysAt(configFileSchema, path, interpolated);
    issues.push(...zodIssues(result.error, [], known).filter((i) => !unset.has(i.path)));
  }
  issues.push(...accountIssues(interpolated).filter((i) => !unset.has(i.path)));
  issues.push(...crossFieldIssues(interpolated));
  for (const rule of rules) issues.push(...rule(interpolated, env));
  if (issues.length > 0 || !result.success) throw new ConfigError(source, dedupe(issues));
  return {
    file: result.data,
    accounts: resolveAccounts(result.data),
    several: result.data.accounts !== undefined,
    variables,
  };
}

/**
 * Validates a config of one account (a file without `accounts:`); a file that
 * lists accounts is refused with a message that says to read it as a file.
 */
export function parseConfig(
  raw: unknown,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
  rules: readonly ConfigRule[] = [],
): Config {
  return oneAccount(parseConfigFile(raw, source, env, rules), source);
}

function oneAccount(parsed: ParsedConfigFile, source: string): Config {
  const [only] = parsed.accounts;
  if (parsed.several || !only) {
    throw new ConfigError(source, [{ path: 'accounts', message: 'this takes a config of one account (no accounts:)' }]);
  }
  return only;
}

/** Reads a YAML or JSON file (JSON is valid YAML) and validates it, with every account it lists. */
export function loadConfigFile(
  path: string = DEFAULT_CONFIG_PATH,
  env: NodeJS.ProcessEnv = process.env,
  rules: readonly ConfigRule[] = [],
): ParsedConfigFile {
  return parseConfigFile(readConfigTree(path), path, env, rules);
}

/** Reads and validates a config file of one account (see parseConfig). */
export function loadConfig(
  path: string = DEFAULT_CONFIG_PATH,
  env: NodeJS.ProcessEnv = process.env,
  rules: readonly ConfigRule[] = [],
): Config {
  return oneAccount(loadConfigFile(path, env, rules), path);
}

/** The file's YAML (or JSON) tree, or a ConfigError saying why it could not be read. */
function readConfigTree(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigNotFoundError(path, { cause });
    throw new ConfigError(path, [{ path: '', message: String(cause) }], { cause });
  }
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (cause) {
    throw new ConfigError(path, [{ path: '', message: `not valid YAML/JSON: ${(cause as Error).message}` }], {
      cause,
    });
  }
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
