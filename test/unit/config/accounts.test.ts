import { describe, expect, it } from 'vitest';
import { accountPrefix, accountStatePath } from '../../../src/config/accounts.js';
import { parseConfig, parseConfigFile } from '../../../src/config/load.js';
import { accountsOfShard, parseShard, shardOf } from '../../../src/config/shard.js';
import { ConfigError } from '../../../src/errors.js';

const URL_A = 'https://a.helpdesk.example/v1';
const URL_B = 'https://b.helpdesk.example/v1';

function issuesOf(raw: unknown): string[] {
  try {
    parseConfigFile(raw, 'test.yaml', {});
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('accounts: in the config', () => {
  it('resolves each account into a whole config: its source, streams, state folder, output prefix and share', () => {
    const parsed = parseConfigFile(
      {
        source: { rate_limit: { requests_per_minute: 600 }, local_address: '10.0.0.2' },
        accounts: [
          { name: 'acme', base_url: URL_A, token: 'token-a' },
          { name: 'globex', base_url: URL_B, token: 'token-b', streams: ['tags'], share: 3 },
        ],
        streams: ['conversations', 'tags'],
        destination: { type: 'local', path: './out', prefix: 'helpdesk' },
        state: { path: './.hs/state.sqlite' },
        load: {},
      },
      'test.yaml',
      {},
    );
    expect(parsed.several).toBe(true);
    const [acme, globex] = parsed.accounts;
    expect(acme).toMatchObject({
      account: { name: 'acme', share: 1 },
      source: {
        base_url: URL_A,
        token: 'token-a',
        local_address: '10.0.0.2',
        rate_limit: { requests_per_minute: 600 },
      },
      streams: ['conversations', 'tags'],
      state: { path: './.hs/acme/state.sqlite' },
      destination: { prefix: 'helpdesk/acme' },
      // One warehouse for every account: the file's default target, beside its state.
      load: { into: 'duckdb:.hs/state.duckdb' },
    });
    expect(globex).toMatchObject({ account: { name: 'globex', share: 3 }, streams: ['tags'] });
  });

  it('a file without accounts: is one account, exactly as before', () => {
    const raw = { source: { base_url: URL_A, token: 'token-a' } };
    const parsed = parseConfigFile(raw, 'test.yaml', {});
    expect(parsed.several).toBe(false);
    expect(parsed.accounts).toHaveLength(1);
    expect(parsed.accounts[0]?.account).toBeUndefined();
    expect(parsed.accounts[0]?.state.path).toBe('./.helpdesk-sync/state.sqlite');
    expect(parseConfig(raw, 'test.yaml', {}).source.base_url).toBe(URL_A);
  });

  it('lists every problem of the accounts at once, each with its path', () => {
    expect(
      issuesOf({
        source: { base_url: URL_A, token: 'x-token' },
        accounts: [
          { name: 'acme', base_url: URL_A, token: 'token-a' },
          { name: 'ACME', base_url: URL_B, token: 'token-b' },
          { name: 'a/b', base_url: 'http://remote.example/v1', token: 'token-c' },
          { name: '..', base_url: `${URL_A}/`, token: 'token-a' },
          { name: 'late', base_url: URL_B, token: 'token-d', share: 0 },
        ],
        push: { accounts: ['acme', 'nobody'] },
      }).sort(),
    ).toEqual(
      [
        'source.base_url: with accounts:, each account has its own base_url: move it there',
        'source.token: with accounts:, each account has its own token: move it there',
        'accounts.1.name: "ACME" is the name of accounts.0 too',
        'accounts.2.name: expected 1 to 64 letters, digits, - or _ (it names a folder, a key prefix and a column value)',
        'accounts.2.base_url: must use https unless the host is loopback; set source.allow_insecure_http: true to override',
        'accounts.3.name: expected 1 to 64 letters, digits, - or _ (it names a folder, a key prefix and a column value)',
        'accounts.3: the same base_url and token as accounts.0: one account listed twice',
        'accounts.4.share: expected a number from 1 to 1000',
        'push.accounts.1: no account is named "nobody"',
      ].sort(),
    );
  });

  it('without accounts:, source.base_url and source.token are required, and push.accounts names nothing', () => {
    expect(issuesOf({ source: {}, push: { accounts: ['acme'] } }).sort()).toEqual([
      'push.accounts: names accounts of accounts:, which this config does not list',
      'source.base_url: required (or list accounts:)',
      'source.token: required (or list accounts:)',
    ]);
  });

  it("an account's state is in a folder named after it, beside the configured file or object", () => {
    expect(accountStatePath('./.helpdesk-sync/state.sqlite', 'acme')).toBe('./.helpdesk-sync/acme/state.sqlite');
    expect(accountStatePath('state.sqlite', 'acme')).toBe('acme/state.sqlite');
    expect(accountStatePath('s3://bucket/helpdesk/state.sqlite', 'acme')).toBe(
      's3://bucket/helpdesk/acme/state.sqlite',
    );
    expect(accountStatePath('s3://bucket/state.sqlite', 'acme')).toBe('s3://bucket/acme/state.sqlite');
    expect(accountPrefix('', 'acme')).toBe('acme');
    expect(accountPrefix('helpdesk/', 'acme')).toBe('helpdesk/acme');
  });
});

describe('--shard', () => {
  it('reads i/n from 0, and refuses anything else', () => {
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShard(' 2/3 ')).toEqual({ index: 2, count: 3 });
    for (const bad of ['3/3', '1/0', '-1/2', '1', 'a/b', '1/2/3'])
      expect(() => parseShard(bad), bad).toThrow(/--shard/);
  });

  it('puts every account in exactly one shard, by its name alone: another account never moves it', () => {
    const names = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'soylent'];
    const accounts = names.map((name) => ({ account: { name } }));
    const shards = [0, 1, 2].map((index) => accountsOfShard(accounts, { index, count: 3 }).map((a) => a.account.name));
    expect(shards.flat().sort()).toEqual([...names].sort());
    const fewer = [0, 1, 2].map((index) =>
      accountsOfShard(accounts.slice(0, 3), { index, count: 3 }).map((a) => a.account.name),
    );
    for (const name of names.slice(0, 3)) {
      expect(fewer.findIndex((s) => s.includes(name))).toBe(shards.findIndex((s) => s.includes(name)));
    }
    expect(shardOf('acme', 3)).toBe(shardOf('acme', 3));
  });
});
