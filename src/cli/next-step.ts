import { isAbsolute, resolve } from 'node:path';
import type { ConfigVariables } from '../config/interpolate.js';
import type { CommandContext, ConfiguredApi } from './command-context.js';
import { CONFIG_ENV } from './options.js';

/** What an error tells about itself, read as plain data (no class needed: the API layer stays unloaded). */
interface ErrorFacts {
  code?: string;
  url?: string;
  path?: string;
}

/** The account whose API the failed request went to: the one whose base URL it starts with, else the only one. */
function apiOf(url: string | undefined, apis: readonly ConfiguredApi[]): ConfiguredApi | undefined {
  const base = (u: string) => u.replace(/\/+$/, '');
  const found = url === undefined ? undefined : apis.find((a) => url.startsWith(`${base(a.baseUrl)}/`));
  return found ?? (apis.length === 1 ? apis[0] : undefined);
}

/** `source.token` of config/x.yaml, with the variable it came through (never its value). */
function setting(key: string, ctx: CommandContext): { where: string; variable?: string; fromDefault: boolean } {
  const file = ctx.config ? ` of ${ctx.config.path}` : '';
  const use = (ctx.variables as ConfigVariables | undefined)?.get(key)?.[0];
  return { where: `${key}${file}`, variable: use?.name, fromDefault: use?.fromDefault === true };
}

/** A 401: the token was refused, and where it came from: the variable to set, or the file to edit. */
function tokenStep(facts: ErrorFacts, ctx: CommandContext): string {
  const api = apiOf(facts.url, ctx.apis ?? []);
  const token = setting(`${api?.path ?? 'source'}.token`, ctx);
  if (token.variable === undefined) {
    return `the API refused the token in ${token.where}: put a valid personal access token there (or \${HELPDESK_TOKEN}, with the token in the environment)`;
  }
  const how = token.fromDefault
    ? `the default of ${token.where}, as ${token.variable} is not set`
    : `${token.variable}, which ${token.where} reads`;
  return `the API refused the token from ${how}: set ${token.variable} to a valid personal access token`;
}

/** No connection, or no answer in time: name the host and where its URL came from. */
function hostStep(facts: ErrorFacts, ctx: CommandContext, timeout: boolean): string {
  const host = facts.url && URL.canParse(facts.url) ? new URL(facts.url).host : 'the API host';
  const api = apiOf(facts.url, ctx.apis ?? []);
  const url = setting(`${api?.path ?? 'source'}.base_url`, ctx);
  const said = timeout ? `${host} did not answer in time` : `nothing answered at ${host}`;
  const from =
    url.variable === undefined
      ? `check ${url.where}`
      : url.fromDefault
        ? `${url.where} is its default, as ${url.variable} is not set: set ${url.variable} to the API's URL`
        : `check ${url.variable}, which ${url.where} reads`;
  return `${said}: is the API up and reachable from here? ${from}`;
}

/** A missing config file: where it was looked for, how that path was chosen, and how to start one. */
function configStep(path: string, ctx: CommandContext, example: string): string[] {
  const copy = `start from the example: cp ${example} ${path}`;
  if (ctx.config?.origin === 'default' && ctx.config.path === path) {
    return [copy, `or name another file with --config FILE or ${CONFIG_ENV}`];
  }
  return [`check the path, or ${copy}`];
}

/** How the path of a missing config file was chosen, and where a relative one was looked for. */
export function configChoice(path: string, ctx: CommandContext): string {
  const how =
    ctx.config?.path !== path
      ? 'given'
      : ctx.config.origin === 'env'
        ? `named by ${CONFIG_ENV}`
        : ctx.config.origin === 'cli'
          ? 'named by --config'
          : `the default path, as neither --config nor ${CONFIG_ENV} names one`;
  return isAbsolute(path) ? how : `${how}; looked for as ${resolve(path)}`;
}

/**
 * What to do about an error that ended a command, when its message does not say
 * it already: the lines below the error's own. Knows the command's config (the
 * variable a token came from, how the config file was named); `apiHint` gives
 * the status table's hint of any other API error (of the error these facts are of).
 */
export function nextStep(
  facts: ErrorFacts,
  ctx: CommandContext,
  options: { example: () => string; apiHint?: () => string | undefined },
): string[] {
  switch (facts.code) {
    case 'CONFIG_NOT_FOUND':
      return configStep(facts.path ?? '', ctx, options.example());
    case 'API_UNAUTHORIZED':
      return [tokenStep(facts, ctx)];
    case 'API_NETWORK':
      return [hostStep(facts, ctx, false)];
    case 'API_TIMEOUT':
      return [hostStep(facts, ctx, true)];
    default: {
      const hint = facts.code?.startsWith('API_') ? options.apiHint?.() : undefined;
      return hint ? [hint] : [];
    }
  }
}
