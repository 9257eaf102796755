import { describe, expect, it } from 'vitest';
import { openStateDb } from '../../../src/state/database.js';
import { describeState, formatStateOverview, resetState } from '../../../src/state/state-admin.js';
import { streamScopes } from '../../../src/streams/scopes.js';

function seeded() {
  const state = openStateDb(':memory:');
  const kv = state.db.prepare('INSERT INTO kv_state (scope, key, value) VALUES (?, ?, ?)');
  kv.run('fp:conversations', 'c1', 'h1');
  kv.run('fp:conversations', 'c2', 'h2');
  kv.run('fp:thread_at', 'c1', 'h1');
  kv.run('report_day:i1', '2026-11-20', 'r');
  kv.run('report_day:i2', '2026-11-21', 'r');
  const run = state.db.prepare('INSERT INTO runs (run_id, started_at, finished_at, status) VALUES (?, ?, ?, ?)');
  // Same second, so the random suffix of the run id does not order them: started_at does.
  run.run('20261122T051023Z-zzzzzz', '2026-11-22T05:10:23.102Z', '2026-11-22T05:10:23.120Z', 'aborted');
  run.run('20261122T051023Z-aaaaaa', '2026-11-22T05:10:23.500Z', '2026-11-22T05:10:24.000Z', 'finished');
  return state;
}

describe('state show / reset', () => {
  it('counts what each stream remembers and names the latest run by start time', () => {
    const overview = describeState(seeded(), streamScopes);
    const byStream = Object.fromEntries(overview.streams.map((s) => [s.stream, s]));
    expect(byStream.conversations?.keys).toBe(2);
    expect(byStream.messages?.keys).toBe(1);
    expect(byStream.reports).toEqual({ stream: 'reports', keys: 2, latest: '2026-11-21' });
    expect(overview.lastRun?.run_id).toBe('20261122T051023Z-aaaaaa');
    expect(formatStateOverview(overview)).toMatch(/last run 20261122T051023Z-aaaaaa: finished/);
  });

  it('forgets only the named streams', () => {
    const state = seeded();
    expect(resetState(state, streamScopes, ['reports'])).toBe(2);
    const after = Object.fromEntries(describeState(state, streamScopes).streams.map((s) => [s.stream, s.keys]));
    expect(after).toMatchObject({ reports: 0, conversations: 2, messages: 1 });
    expect(resetState(state, streamScopes)).toBe(3);
  });
});
