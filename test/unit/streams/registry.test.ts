import { describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../../src/config/schema.js';
import { UsageError } from '../../../src/errors.js';
import { checkStreamNames, planStreams, STREAMS, streamFor } from '../../../src/streams/registry.js';
import { streamScopes } from '../../../src/streams/scopes.js';

describe('stream registry', () => {
  it('serves every configured stream name with exactly one implementation', () => {
    for (const name of STREAM_NAMES) {
      expect(
        STREAMS.filter((s) => (s.serves ?? [s.name]).includes(name)),
        name,
      ).toHaveLength(1);
    }
    expect(streamFor('contacts')).toBe(streamFor('messages'));
  });

  it('plans each implementation once, in registry order, with the selected names it serves', () => {
    const plan = planStreams(['reports', 'messages', 'inboxes', 'contacts']);
    expect(plan.map((p) => [p.stream.name, p.names])).toEqual([
      ['inboxes', ['inboxes']],
      ['conversations', ['contacts', 'messages']],
      ['reports', ['reports']],
    ]);
  });

  it('rejects unknown names with a usage error naming the valid ones, and dedupes known ones', () => {
    expect(() => checkStreamNames(['users', 'tickets'])).toThrow(UsageError);
    expect(() => checkStreamNames(['users', 'tickets'])).toThrow(
      /unknown stream\(s\) tickets; valid: conversations, messages/,
    );
    expect(() => checkStreamNames([])).toThrow(/at least one/);
    expect(checkStreamNames(['users', 'users', 'tags'])).toEqual(['users', 'tags']);
  });
});

describe('streamScopes', () => {
  it('names the state of every stream, and no scope twice', () => {
    const all = STREAM_NAMES.flatMap((n) => [...streamScopes(n).scopes, ...streamScopes(n).prefixes]);
    expect(new Set(all).size).toBe(all.length);
    expect(streamScopes('messages').scopes).toEqual(['fp:thread_at', 'fp:thread']);
    expect(streamScopes('reports').prefixes).toEqual(['report_day:']);
    expect(streamScopes('holidays').scopes).toEqual(['fp:holidays']);
  });
});
