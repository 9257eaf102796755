import type { ConfigVariables } from '../config/interpolate.js';
import type { ParsedConfigFile } from '../config/load.js';

/** How a command was told which config file to read: `--config`, HELPDESK_SYNC_CONFIG, or the default path. */
export type ConfigOrigin = 'cli' | 'env' | 'default';

/** One account's API as its config names it: where its settings sit (`source`, `accounts.2`) and its base URL. */
export interface ConfiguredApi {
  path: string;
  baseUrl: string;
}

/**
 * What the running command read, for the lines that end it: the config file
 * and how it was named, the variables its values came through, each account's
 * API. One per process, like the terminal (cli-logger.ts): the command line
 * runs one command.
 */
export interface CommandContext {
  config?: { path: string; origin: ConfigOrigin };
  variables?: ConfigVariables;
  apis?: readonly ConfiguredApi[];
}

let context: CommandContext = {};

export function commandContext(): CommandContext {
  return context;
}

/** Called once the command line is parsed: the config file the command names, and how (commander's value source). */
export function noteConfigChoice(path: unknown, source: string | undefined): void {
  if (typeof path !== 'string') return;
  const origin: ConfigOrigin = source === 'env' ? 'env' : source === 'cli' ? 'cli' : 'default';
  context = { ...context, config: { path, origin } };
}

/** Called when the config has been read: its variables and each account's API. */
export function noteConfigRead(path: string, parsed: ParsedConfigFile): void {
  const apis = parsed.several
    ? (parsed.file.accounts ?? []).map((a, i) => ({ path: `accounts.${i}`, baseUrl: a.base_url }))
    : parsed.accounts.map((a) => ({ path: 'source', baseUrl: a.source.base_url }));
  context = {
    config: context.config?.path === path ? context.config : { path, origin: 'cli' },
    variables: parsed.variables,
    apis,
  };
}
