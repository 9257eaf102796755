import { describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { describeState, formatStateOverview, resetState } from '../../../src/state/state-admin.js';
import { streamScopes } from '../../../src/streams/scopes.js';

function seeded() {
  const state = openStateDb(':memory:');
  const store = createKvStore(state);
  const kv = { run: (scope: string, key: string, value: string) => store.put(scope, key, value) };
  kv.run('fp:conversations', 'c1', 'h1');
  kv.run('fp:conversations', 'c2', 'h2');
  kv.run('fp:thread_at', 'c1', 'h1');
  // One thread's state: the thread's per-row hashes, one entry for however many messages it holds.
  kv.run('fp:thread', 'c1', '{"m1":"a","m2":"b","m3":"c"}');
  kv.run('report_day:i1', '2026-11-20', 'r');
  kv.run('report_day:i2', '2026-11-21', 'r');
  const run = state.db.prepare('INSERT INTO runs (run_id, started_at, finished_at, status) VALUES (?, ?, ?, ?)');
  // Same second, so the random suffix of the run id does not order them: started_at does.
  run.run('20261122T051023Z-zzzzzz', '2026-11-22T05:10:23.102Z', '2026-11-22T05:10:23.120Z', 'aborted');
  run.run('20261122T051023Z-aaaaaa', '2026-11-22T05:10:23.500Z', '2026-11-22T05:10:24.000Z', 'finished');
  return state;
}

describe('state show / reset', () => {
  it('counts what each stream remembers in its own unit and names the latest run by start time', () => {
    const overview = describeState(seeded(), streamScopes);
    const byStream = Object.fromEntries(overview.streams.map((s) => [s.stream, s]));
    expect(byStream.conversations).toEqual({ stream: 'conversations', count: 2, unit: 'conversations' });
    // Two kv entries for the one conversation whose thread was fetched: one thread.
    expect(byStream.messages).toEqual({ stream: 'messages', count: 1, unit: 'threads' });
    expect(byStream.reports).toEqual({ stream: 'reports', count: 2, unit: 'inbox-days', latest: '2026-11-21' });
    expect(byStream.users).toEqual({ stream: 'users', count: 0, unit: 'teammates' });
    expect(overview.lastRun?.run_id).toBe('20261122T051023Z-aaaaaa');
    const text = formatStateOverview(overview);
    expect(text).toMatch(/last run 20261122T051023Z-aaaaaa: finished, started 2026-11-22T05:10:23.500Z, ended /);
    expect(text).toMatch(/ {2}messages +1 threads\n/);
    expect(text).toMatch(/ {2}reports +2 inbox-days {2}latest day 2026-11-21/);
  });

  it('shows a run stopped by a signal as interrupted, not finished', () => {
    const state = seeded();
    state.db
      .prepare('INSERT INTO runs (run_id, started_at, finished_at, status, summary_json) VALUES (?, ?, ?, ?, ?)')
      .run(
        '20261122T060000Z-bbbbbb',
        '2026-11-22T06:00:00.000Z',
        '2026-11-22T06:00:09.000Z',
        'finished',
        '{"status":"interrupted"}',
      );
    const overview = describeState(state, streamScopes);
    expect(overview.lastRun?.status).toBe('interrupted');
    expect(formatStateOverview(overview)).toContain(
      'last run 20261122T060000Z-bbbbbb: interrupted, started 2026-11-22T06:00:00.000Z, ended 2026-11-22T06:00:09.000Z ' +
        '(stopped by a signal: what was complete is committed, the next run resumes)',
    );
  });

  it('shows a run some part of which failed as partial, not finished', () => {
    const state = seeded();
    state.db
      .prepare('INSERT INTO runs (run_id, started_at, finished_at, status, summary_json) VALUES (?, ?, ?, ?, ?)')
      .run(
        '20261122T070000Z-cccccc',
        '2026-11-22T07:00:00.000Z',
        '2026-11-22T07:00:09.000Z',
        'finished',
        '{"status":"partial","failed_streams":[{"stream":"holidays","code":"API_REDIRECT","message":"refused"}]}',
      );
    const overview = describeState(state, streamScopes);
    expect(overview.lastRun?.status).toBe('partial');
    expect(formatStateOverview(overview)).toContain(
      'last run 20261122T070000Z-cccccc: partial, started 2026-11-22T07:00:00.000Z, ended 2026-11-22T07:00:09.000Z ' +
        "(some part failed (its summary's failed_streams): what could commit is committed, the next run retries it)",
    );
  });

  it('forgets only the named streams', () => {
    const state = seeded();
    expect(resetState(state, streamScopes, ['reports'])).toBe(2);
    const after = Object.fromEntries(describeState(state, streamScopes).streams.map((s) => [s.stream, s.count]));
    expect(after).toMatchObject({ reports: 0, conversations: 2, messages: 1 });
    expect(resetState(state, streamScopes)).toBe(4);
  });
});
