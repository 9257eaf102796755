import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLoadTarget } from '../../../src/config/default-load-target.js';
import { parseConfig } from '../../../src/config/load.js';
import { stateLocation, stateS3Settings } from '../../../src/config/state-location.js';
import { ConfigError } from '../../../src/errors.js';

const valid = {
  source: { base_url: 'https://api.example.com/v1', token: '${HELPDESK_TOKEN}' },
};

function issuesOf(raw: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(raw, 'test.yaml', env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(64);
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('fills defaults and interpolates the environment', () => {
    const config = parseConfig(valid, 'test.yaml', { HELPDESK_TOKEN: 'secret-token-1' });
    expect(config.source.token).toBe('secret-token-1');
    expect(config.source.rate_limit).toEqual({ requests_per_minute: 300, concurrency: 4 });
    expect(config.source.conversations_endpoint).toBe('search');
    expect(config.destination).toMatchObject({ type: 'local', path: './out', max_records_per_file: 100_000 });
    expect(config.state.path).toBe('./.helpdesk-sync/state.sqlite');
    expect(config.reports.lookback_days).toBe(7);
    expect(config.conversations).toEqual({
      view_only_fields: ['viewed_at', 'viewer_id'],
      signed_url_fields: ['avatar'],
      first_sync: 'full',
      recent_days: 30,
    });
  });

  it('accepts ${VAR:-default}', () => {
    const config = parseConfig(
      { source: { base_url: '${BASE:-http://127.0.0.1:4010/v1}', token: 't0ken-value' } },
      'x',
      {},
    );
    expect(config.source.base_url).toBe('http://127.0.0.1:4010/v1');
  });

  it.each([
    [{ ...valid, streams: ['conversations', 'bogus'] }, 'streams.1: '],
    [{ ...valid, extra_key: 1 }, ': unknown key(s): extra_key'],
    [
      { source: { ...valid.source, rate_limit: { requests_per_minute: 0 } } },
      'source.rate_limit.requests_per_minute: expected a number from 1',
    ],
    [
      { source: { ...valid.source, rate_limit: { window_seconds: 0.5 } } },
      'source.rate_limit.window_seconds: expected a whole number',
    ],
    [
      { source: { ...valid.source, rate_limit: { window_seconds: 86_401 } } },
      'source.rate_limit.window_seconds: expected a number from 1 to 86400',
    ],
    [{ ...valid, destination: { type: 'ftp' } }, 'destination.type: '],
    [{ ...valid, reports: { start_date: '2026-02-30' } }, 'reports.start_date: not a real calendar date'],
    [
      { ...valid, conversations: { view_only_fields: ['contact.name'] } },
      'conversations.view_only_fields.0: expected a field name',
    ],
    [{ ...valid, conversations: { signed_url_fields: 'avatar' } }, 'conversations.signed_url_fields: '],
    [{ ...valid, conversations: { ignore: [] } }, 'conversations: unknown key(s): ignore'],
    [{ ...valid, conversations: { first_sync: 'newest' } }, 'conversations.first_sync: '],
    [{ ...valid, conversations: { recent_days: 0 } }, 'conversations.recent_days: expected a number from 1'],
    [
      { ...valid, conversations: { backfill_pages_per_run: 2.5 } },
      'conversations.backfill_pages_per_run: expected a whole number',
    ],
  ])('reports %j', (raw, expected) => {
    const issues = issuesOf(raw, { HELPDESK_TOKEN: 'abcdefgh' });
    expect(issues.some((i) => i.startsWith(expected))).toBe(true);
  });

  it('lists every problem at once, each with its path', () => {
    const issues = issuesOf({ source: { base_url: 'not a url' }, streams: [], destination: { type: 's3' } });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^source\.base_url: /),
        expect.stringMatching(/^source\.token: /),
        expect.stringMatching(/^streams: /),
        expect.stringMatching(/^destination\.bucket: /),
      ]),
    );
  });

  it('names a missing environment variable at its path', () => {
    expect(issuesOf(valid, {})).toContain('source.token: environment variable HELPDESK_TOKEN is not set');
  });

  it('refuses plain http to a remote host unless allowed', () => {
    const raw = { source: { base_url: 'http://api.example.com/v1', token: 'abcdefgh' } };
    expect(issuesOf(raw)[0]).toMatch(/^source\.base_url: must use https/);
    const allowed = parseConfig({ source: { ...raw.source, allow_insecure_http: true } }, 'x', {});
    expect(allowed.source.allow_insecure_http).toBe(true);
    expect(parseConfig({ source: { base_url: 'http://127.0.0.1:4010/v1', token: 'abcdefgh' } }, 'x', {})).toBeTruthy();
  });

  it('accepts a state path in object storage and takes its S3 settings from the destination or state.s3', () => {
    const env = { HELPDESK_TOKEN: 'abcdefgh' };
    const destination = { type: 's3', bucket: 'out-bucket', region: 'eu-west-1', force_path_style: true };
    const shared = parseConfig(
      { ...valid, destination, state: { path: 's3://state-bucket/hs/state.sqlite' } },
      'x',
      env,
    );
    expect(stateLocation(shared.state.path)).toEqual({
      kind: 's3',
      bucket: 'state-bucket',
      key: 'hs/state.sqlite',
      url: 's3://state-bucket/hs/state.sqlite',
    });
    expect(stateS3Settings(shared)).toEqual({
      region: 'eu-west-1',
      endpoint: undefined,
      forcePathStyle: true,
      checksum: 'when_supported',
    });
    const own = parseConfig(
      {
        ...valid,
        destination,
        state: {
          path: 's3://state-bucket/state.sqlite',
          s3: { region: 'us-west-2', endpoint: 'http://127.0.0.1:9000' },
        },
      },
      'x',
      env,
    );
    expect(stateS3Settings(own)).toEqual({
      region: 'us-west-2',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: false,
      checksum: 'when_supported',
    });
    expect(stateLocation('./state.sqlite')).toEqual({ kind: 'local', path: './state.sqlite' });
  });

  it('refuses a malformed object-storage state path, and state.s3 or state.cache_dir beside a local path, all at once', () => {
    const env = { HELPDESK_TOKEN: 'abcdefgh' };
    expect(issuesOf({ ...valid, state: { path: 's3://bucket/' } }, env)).toEqual([
      'state.path: needs an object key after the bucket, e.g. s3://bucket/helpdesk/state.sqlite',
    ]);
    expect(issuesOf({ ...valid, state: { path: 's3://B_ad/state.sqlite' } }, env)).toEqual([
      'state.path: "B_ad" is not an S3 bucket name (s3://bucket/key)',
    ]);
    expect(issuesOf({ ...valid, state: { path: 'gs://bucket/state.sqlite' } }, env)).toEqual([
      'state.path: must be a local file path or s3://bucket/key',
    ]);
    expect(
      issuesOf({ ...valid, state: { path: './state.sqlite', s3: { region: 'eu-west-1', endpoint: 'nope' } } }, env),
    ).toEqual(['state.s3.endpoint: Invalid URL', 'state.s3: applies only to a state.path of the form s3://bucket/key']);
    expect(issuesOf({ ...valid, state: { path: './state.sqlite', cache_dir: '/var/cache/hs' } }, env)).toEqual([
      'state.cache_dir: applies only to a state.path of the form s3://bucket/key',
    ]);
    const config = parseConfig(
      { ...valid, state: { path: 's3://bucket/state.sqlite', cache_dir: '/var/cache/hs' } },
      'test.yaml',
      env,
    );
    expect(config.state.cache_dir).toBe('/var/cache/hs');
  });

  it('requires the /v1 prefix', () => {
    expect(issuesOf({ source: { base_url: 'https://api.example.com/', token: 'abcdefgh' } })).toContain(
      'source.base_url: must end in the version prefix /v1',
    );
  });
});

describe('schedule', () => {
  it('validates cron expressions and needs push files for a push schedule', () => {
    const issues = issuesOf(
      { ...valid, schedule: { sync: 'every minute', push: '0 * * * *' } },
      { HELPDESK_TOKEN: 'abcdefgh' },
    );
    expect(issues).toContain(
      'schedule.sync: expected 5 fields (minute hour day-of-month month day-of-week) or 6 (a second first), got 2',
    );
    const cross = issuesOf({ ...valid, schedule: { push: '0 * * * *' } }, { HELPDESK_TOKEN: 'abcdefgh' });
    expect(cross).toContain('schedule.push: needs push.holidays or push.business_hours to apply');
    const ok = parseConfig({ ...valid, schedule: { sync: '*/15 * * * *' } }, 'x', { HELPDESK_TOKEN: 'abcdefgh' });
    expect(ok.schedule).toEqual({ sync: '*/15 * * * *', timezone: 'UTC' });
  });
});

describe('one report for everything', () => {
  it('reports cross-field rules together with schema issues', () => {
    const issues = issuesOf({ source: { base_url: 'http://example.com/api', token: 'abcdefgh' }, bogus: 1 });
    expect(issues).toEqual(
      expect.arrayContaining([
        ': unknown key(s): bogus',
        'source.base_url: must use https unless the host is loopback; set source.allow_insecure_http: true to override',
        'source.base_url: must end in the version prefix /v1',
      ]),
    );
  });

  it('names a missing variable once, not again as an empty value', () => {
    const issues = issuesOf({ source: { base_url: '${HELPDESK_BASE_URL}', token: '${HELPDESK_TOKEN}' } }, {});
    expect(issues).toEqual([
      'source.base_url: environment variable HELPDESK_BASE_URL is not set',
      'source.token: environment variable HELPDESK_TOKEN is not set',
    ]);
  });

  it('refuses a token with whitespace and an unknown schedule time zone', () => {
    const issues = issuesOf({
      source: { base_url: 'https://api.example.com/v1', token: 'abc def\n' },
      schedule: { sync: '*/5 * * * *', timezone: 'Mars/Olympus' },
    });
    expect(issues).toContain(
      'source.token: must not contain whitespace or line breaks (a secret file with a trailing newline?)',
    );
    expect(issues).toContain('schedule.timezone: not an IANA time zone (e.g. Europe/Berlin)');
  });

  it('accepts metrics.listen as host:port and lists every bad metrics key', () => {
    const env = { HELPDESK_TOKEN: 't' };
    for (const listen of ['0.0.0.0:9464', 'localhost:0', '[::]:9464']) {
      expect(parseConfig({ ...valid, metrics: { listen } }, 'test.yaml', env).metrics).toEqual({
        listen,
        unhealthy_after_failures: 3,
      });
    }
    const issues = issuesOf({ ...valid, metrics: { listen: '9464', unhealthy_after_failures: 0 } }, env);
    expect(issues).toContain('metrics.listen: expected host:port, e.g. 0.0.0.0:9464');
    expect(issues.some((i) => i.startsWith('metrics.unhealthy_after_failures:'))).toBe(true);
    expect(issuesOf({ ...valid, metrics: { listen: 'host:70000' } }, env)).toEqual([
      'metrics.listen: port must be 0-65535',
    ]);
  });
});

describe('load and privacy', () => {
  const env = { HELPDESK_TOKEN: 't0ken-value' };

  it('load.into is a duckdb: file or a postgres:// connection string; load itself is optional', () => {
    expect(parseConfig(valid, 'test.yaml', env).load).toBeUndefined();
    expect(parseConfig({ ...valid, load: {} }, 'test.yaml', env).load).toEqual({
      schema_contract: 'evolve',
      history: false,
    });
    for (const into of ['duckdb:/data/h.duckdb', 'postgres://u:p@db:5432/wh', 'postgresql://db/wh']) {
      expect(parseConfig({ ...valid, load: { into } }, 'test.yaml', env).load).toEqual({
        into,
        schema_contract: 'evolve',
        history: false,
      });
    }
    expect(issuesOf({ ...valid, load: { into: 'mysql://db/wh', when: 'always' } }, env)).toEqual([
      'load.into: expected duckdb:<file> (or a path ending in .duckdb or .db) or a postgres:// connection string',
      'load: unknown key(s): when',
    ]);
    expect(issuesOf({ ...valid, load: { into: 'duckdb:' } }, env)).toEqual([
      'load.into: duckdb: needs a file path, e.g. duckdb:./warehouse.duckdb',
    ]);
  });

  it('the default target lives beside a local state; with the state in S3 a load: block must name its target', () => {
    const inS3 = { ...valid, state: { path: 's3://bucket/helpdesk/state.sqlite' } };
    expect(parseConfig(inS3, 'test.yaml', env).load).toBeUndefined();
    expect(issuesOf({ ...inS3, load: {} }, env)).toEqual([
      'load.into: with state.path in object storage there is no default DuckDB file (it lives beside a local state): set load.into or give --into',
    ]);
    expect(parseConfig({ ...inS3, load: { into: 'postgres://db/wh' } }, 'test.yaml', env).load).toEqual({
      into: 'postgres://db/wh',
      schema_contract: 'evolve',
      history: false,
    });
    expect(issuesOf({ ...valid, load: { schema_contract: 'drop' } }, env)).toEqual([
      'load.schema_contract: Invalid option: expected one of "evolve"|"freeze"',
    ]);
    expect(defaultLoadTarget('./.helpdesk-sync/state.sqlite')).toEqual({
      target: { kind: 'duckdb', path: join('.helpdesk-sync', 'state.duckdb') },
    });
    expect(defaultLoadTarget('/var/lib/hs/acme.db')).toEqual({
      target: { kind: 'duckdb', path: '/var/lib/hs/acme.duckdb' },
    });
  });

  it('privacy: the schema checks the shape (tables and columns are the output rule’s to check)', () => {
    expect(parseConfig(valid, 'test.yaml', env).privacy).toEqual({});
    const privacy = { _extra: 'drop', contacts: { email: 'hash' } };
    expect(parseConfig({ ...valid, privacy }, 'test.yaml', env).privacy).toEqual(privacy);
    expect(issuesOf({ ...valid, privacy: { contacts: 3 } }, env)).toEqual([
      'privacy.contacts: expected keep or drop (for _extra), or a table: { column: hash | drop }',
    ]);
  });
});
