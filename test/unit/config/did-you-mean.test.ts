import { describe, expect, it } from 'vitest';
import { editDistance, nearestWord } from '../../../src/config/did-you-mean.js';
import { parseConfigFile } from '../../../src/config/load.js';
import type { ConfigError } from '../../../src/errors.js';

function issuesOf(raw: unknown): string[] {
  try {
    parseConfigFile(raw, 'c.yaml', {});
  } catch (error) {
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

const source = { base_url: 'https://api.example.com/v1', token: 't0ken' };

describe('did you mean', () => {
  it('counts a swap of two neighbouring letters as one edit', () => {
    expect(editDistance('tokne', 'token')).toBe(1);
    expect(editDistance('base_ulr', 'base_url')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('offers the nearest known word within a third of its length, and nothing farther', () => {
    expect(nearestWord('requests_per_minte', ['concurrency', 'requests_per_minute'])).toBe('requests_per_minute');
    expect(nearestWord('Token', ['token'])).toBe('token');
    expect(nearestWord('extra_key', ['source', 'streams', 'state'])).toBeUndefined();
    expect(nearestWord('token', ['token'])).toBeUndefined();
  });

  it.each([
    [{ source: { ...source, tokne: 'x' } }, 'source: unknown key(s): tokne (did you mean token?)'],
    [
      { source: { ...source, rate_limit: { requests_per_minte: 3 } } },
      'source.rate_limit: unknown key(s): requests_per_minte (did you mean requests_per_minute?)',
    ],
    [{ source, destination: { type: 'local', pth: './out' } }, 'destination: unknown key(s): pth (did you mean path?)'],
    // Of the local destination's keys only: `bucket` is an S3 key, not a slip of a local one.
    [{ source, destination: { type: 'local', bucket: 'b' } }, 'destination: unknown key(s): bucket'],
    [{ source, stat: { path: 'x' } }, ': unknown key(s): stat (did you mean state?)'],
    [{ source, extra_key: 1 }, ': unknown key(s): extra_key'],
    [
      { source: {}, accounts: [{ name: 'a', base_url: source.base_url, token: 't', shar: 2 }] },
      'accounts.0: unknown key(s): shar (did you mean share?)',
    ],
  ])('a config key typed wrong is said with the known key it is nearest to: %j', (raw, line) => {
    expect(issuesOf(raw)).toContain(line);
  });

  it('a name typed wrong where a list of names is expected: the nearest one, and nothing when none is near', () => {
    const [tagz] = issuesOf({ source, streams: ['conversations', 'tagz'] });
    expect(tagz).toMatch(/^streams\.1: Invalid option: expected one of .* \(did you mean tags\?\)$/);
    const [far] = issuesOf({ source, streams: ['tickets'] });
    expect(far).toMatch(/^streams\.0: Invalid option: expected one of "conversations"\|.*"account"$/);
  });
});
