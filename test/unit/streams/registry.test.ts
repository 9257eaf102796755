import { describe, expect, it } from 'vitest';
import { CATALOG, STREAM_NAMES } from '../../../src/catalog/catalog.js';
import { UsageError } from '../../../src/errors.js';
import { checkStreamNames } from '../../../src/streams/check-stream-names.js';
import { buildStreams, planStreams, streamFor } from '../../../src/streams/registry.js';
import { streamScopes } from '../../../src/streams/scopes.js';
import { streamSettingsOf } from '../../../src/sync/stream-settings-of.js';
import { testConfig } from '../sync/sync-harness.js';

const streams = buildStreams(streamSettingsOf(testConfig()));

describe('stream registry', () => {
  it('serves every declared stream name with exactly one implementation', () => {
    for (const name of STREAM_NAMES) {
      expect(
        streams.filter((s) => (s.serves ?? [s.name]).includes(name)),
        name,
      ).toHaveLength(1);
    }
    expect(streamFor('contacts', streams)).toBe(streamFor('messages', streams));
  });

  it('runs the lists read whole first, then the lists per inbox, the conversation scan, the reports', () => {
    expect(streams.map((s) => (s.serves ?? [s.name]).join('+'))).toEqual([
      'inboxes',
      'users',
      'business_hours',
      'holidays',
      'account',
      'tags',
      'conversations+contacts+messages',
      'reports',
    ]);
  });

  it('plans each implementation once, in run order, with the selected names it serves', () => {
    const plan = planStreams(['reports', 'messages', 'inboxes', 'contacts'], streams);
    expect(plan.map((p) => [p.stream.name, p.names])).toEqual([
      ['inboxes', ['inboxes']],
      ['conversations', ['contacts', 'messages']],
      ['reports', ['reports']],
    ]);
  });

  it('gives every stream declared with a custom probe one to run', () => {
    for (const definition of CATALOG.filter((d) => d.check.probe === 'custom')) {
      expect(streamFor(definition.name, streams).probe, definition.name).toBeTypeOf('function');
    }
  });

  it('rejects unknown names with a usage error naming the valid ones, and dedupes known ones', () => {
    expect(() => checkStreamNames(['users', 'tickets'])).toThrow(UsageError);
    expect(() => checkStreamNames(['users', 'tickets'])).toThrow(
      /unknown stream\(s\) tickets; valid: conversations, messages/,
    );
    expect(() => checkStreamNames(['tagz', 'tickets', 'mesages'], '--full-refresh')).toThrow(
      '--full-refresh: unknown stream(s) tagz (did you mean tags?), tickets, mesages (did you mean messages?); valid: ',
    );
    expect(() => checkStreamNames([])).toThrow(/at least one/);
    expect(checkStreamNames(['users', 'users', 'tags'])).toEqual(['users', 'tags']);
  });
});

describe('streamScopes', () => {
  it('names the state of every stream, as declared, and no scope twice', () => {
    const all = STREAM_NAMES.flatMap((n) => [...streamScopes(n).scopes, ...streamScopes(n).prefixes]);
    expect(new Set(all).size).toBe(all.length);
    expect(streamScopes('conversations').scopes).toEqual(['fp:conversations', 'scan:backfill', 'scan:holes']);
    expect(streamScopes('messages').scopes).toEqual(['fp:thread_at', 'fp:thread']);
    expect(streamScopes('messages').counted).toEqual({ scope: 'fp:thread_at', unit: 'threads' });
    expect(streamScopes('reports').prefixes).toEqual(['report_day:']);
    expect(streamScopes('reports').counted).toEqual({ prefix: 'report_day:', unit: 'inbox-days' });
    expect(streamScopes('holidays').scopes).toEqual(['fp:holidays']);
  });
});
