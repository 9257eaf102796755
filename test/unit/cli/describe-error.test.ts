import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import type { CommandContext, ConfigOrigin } from '../../../src/cli/command-context.js';
import { describeError } from '../../../src/cli/run-command.js';
import { parseConfigFile } from '../../../src/config/load.js';
import { ConfigError, ConfigNotFoundError, LockHeldError, UsageError } from '../../../src/errors.js';

/** The context a command has once it read `raw` (as config/c.yaml, named `origin`) with `env`. */
function readWith(raw: unknown, env: NodeJS.ProcessEnv, origin: ConfigOrigin = 'default'): CommandContext {
  const parsed = parseConfigFile(raw, 'config/c.yaml', env);
  return {
    config: { path: 'config/c.yaml', origin },
    variables: parsed.variables,
    apis: parsed.accounts.map((a) => ({ path: 'source', baseUrl: a.source.base_url })),
  };
}

const EXAMPLE = { source: { base_url: '${HELPDESK_BASE_URL}', token: '${HELPDESK_TOKEN}' } };
const SANDBOX = {
  source: { base_url: '${HELPDESK_BASE_URL:-http://127.0.0.1:4010/v1}', token: '${HELPDESK_TOKEN:-sandbox-admin}' },
};
const me = (code: 'API_UNAUTHORIZED' | 'API_NETWORK', base = 'http://127.0.0.1:4010/v1') =>
  code === 'API_UNAUTHORIZED'
    ? new FatalApiError({ code, method: 'GET', url: `${base}/me`, status: 401, apiMessage: 'Unauthenticated.' })
    : new RetriableApiError({
        code,
        method: 'GET',
        url: `${base}/me`,
        message: `GET ${base}/me failed: ECONNREFUSED (${code})`,
      });

describe('the line an error ends a command with', () => {
  it('names the stable code in brackets and never a class name', () => {
    expect(describeError(new UsageError('--json and --format markdown disagree; give one of them'))).toBe(
      'error [USAGE]: --json and --format markdown disagree; give one of them',
    );
    expect(describeError(new LockHeldError('another run holds the lock'))).toBe(
      'error [STATE_LOCKED]: another run holds the lock',
    );
    expect(describeError(new TypeError('x is not a function'))).toBe('error: x is not a function');
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'a/b.html'"), { code: 'ENOENT' });
    expect(describeError(enoent)).toBe("error [ENOENT]: no such file or directory, open 'a/b.html'");
    for (const text of [describeError(me('API_UNAUTHORIZED')), describeError(new UsageError('x'))]) {
      expect(text).not.toMatch(/[A-Za-z]+Error\b/);
    }
  });

  it('a config problem: the code, then one line per problem as before', () => {
    const error = new ConfigError('config/c.yaml', [{ path: 'source.token', message: 'must not be empty' }]);
    expect(describeError(error)).toBe(
      'error [CONFIG_INVALID]: invalid configuration in config/c.yaml:\n  - source.token: must not be empty',
    );
  });

  it('a 401 names the variable the token came from, never the token', () => {
    const context = readWith(EXAMPLE, {
      HELPDESK_BASE_URL: 'http://127.0.0.1:4010/v1',
      HELPDESK_TOKEN: 's3cret-t0ken',
    });
    const text = describeError(me('API_UNAUTHORIZED'), { context });
    expect(text).toBe(
      'error [API_UNAUTHORIZED]: GET http://127.0.0.1:4010/v1/me failed with status 401: Unauthenticated.\n' +
        '  the API refused the token from HELPDESK_TOKEN, which source.token of config/c.yaml reads: ' +
        'set HELPDESK_TOKEN to a valid personal access token',
    );
    expect(text).not.toContain('s3cret');
  });

  it("a 401 with the placeholder's default, or a token written in the file, says which", () => {
    expect(describeError(me('API_UNAUTHORIZED'), { context: readWith(SANDBOX, {}) })).toContain(
      'the API refused the token from the default of source.token of config/c.yaml, as HELPDESK_TOKEN is not set: ' +
        'set HELPDESK_TOKEN to a valid personal access token',
    );
    const literal = readWith({ source: { base_url: 'http://127.0.0.1:4010/v1', token: 'abc' } }, {});
    expect(describeError(me('API_UNAUTHORIZED'), { context: literal })).toContain(
      'the API refused the token in source.token of config/c.yaml: put a valid personal access token there',
    );
  });

  it('an unreachable host is named, with where its URL came from', () => {
    const context = readWith(EXAMPLE, { HELPDESK_BASE_URL: 'http://127.0.0.1:4010/v1', HELPDESK_TOKEN: 't' });
    expect(describeError(me('API_NETWORK'), { context })).toBe(
      'error [API_NETWORK]: GET http://127.0.0.1:4010/v1/me failed: ECONNREFUSED\n' +
        '  nothing answered at 127.0.0.1:4010: is the API up and reachable from here? ' +
        'check HELPDESK_BASE_URL, which source.base_url of config/c.yaml reads',
    );
  });

  it('another API error gets the status table’s hint', () => {
    const error = new FatalApiError({ code: 'API_FORBIDDEN', method: 'GET', url: 'http://h/v1/me', status: 403 });
    expect(describeError(error, { apiHint: () => 'the token lacks the scope' })).toBe(
      'error [API_FORBIDDEN]: GET http://h/v1/me failed with status 403\n  the token lacks the scope',
    );
  });

  it.each([
    [
      'default' as const,
      'config/helpdesk-sync.yaml',
      'error [CONFIG_NOT_FOUND]: no config file at config/helpdesk-sync.yaml (the default path, as neither --config ' +
        `nor HELPDESK_SYNC_CONFIG names one; looked for as ${resolve('config/helpdesk-sync.yaml')})\n` +
        '  start from the example: cp config/helpdesk-sync.example.yaml config/helpdesk-sync.yaml\n' +
        '  or name another file with --config FILE or HELPDESK_SYNC_CONFIG',
    ],
    [
      'env' as const,
      'ops.yaml',
      `error [CONFIG_NOT_FOUND]: no config file at ops.yaml (named by HELPDESK_SYNC_CONFIG; looked for as ${resolve('ops.yaml')})\n` +
        '  check the path, or start from the example: cp config/helpdesk-sync.example.yaml ops.yaml',
    ],
    [
      'cli' as const,
      '/etc/hs.yaml',
      'error [CONFIG_NOT_FOUND]: no config file at /etc/hs.yaml (named by --config)\n' +
        '  check the path, or start from the example: cp config/helpdesk-sync.example.yaml /etc/hs.yaml',
    ],
  ])('a missing config file (%s): the path looked at, how it was chosen, the example to copy', (origin, path, text) => {
    const context: CommandContext = { config: { path, origin } };
    const said = describeError(new ConfigNotFoundError(path), {
      context,
      example: () => 'config/helpdesk-sync.example.yaml',
    });
    expect(said).toBe(text);
  });

  it.each([
    ['Invalid configuration in c.yaml', 'invalid configuration in c.yaml'],
    ['DuckDB refused the query', 'DuckDB refused the query'],
    ['PostgreSQL refused the query', 'PostgreSQL refused the query'],
    ['GET http://h/v1/me failed', 'GET http://h/v1/me failed'],
  ])('the first word is lowered after the code, a name in capitals is not: %s', (message, said) => {
    expect(describeError(new UsageError(message))).toBe(`error [USAGE]: ${said}`);
  });
});
