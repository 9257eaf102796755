import { describe, expect, it } from 'vitest';
import { accountNow, accountsProgressLines } from '../../../src/sync/accounts/accounts-progress.js';
import type { StreamProgress, SyncProgress } from '../../../src/sync/sync-types.js';

const stream = (
  name: string,
  status: StreamProgress['status'],
  over: Partial<StreamProgress> = {},
): StreamProgress => ({
  stream: name,
  status,
  rows: status === 'pending' ? 0 : 100,
  requests: status === 'pending' ? 0 : 10,
  elapsed_ms: 30_000,
  ...over,
});

const progress = (over: Partial<SyncProgress> = {}): SyncProgress => ({
  run_id: '20260310T120000Z-abc123',
  elapsed_ms: 75_000,
  requests_per_minute: 300,
  requests: 250,
  rate_limited: 1,
  waited_ms: 0,
  streams: [
    stream('inboxes', 'done'),
    stream('conversations+contacts+messages', 'running', { rows: 1200, remaining_requests: 600 }),
    stream('reports', 'pending'),
  ],
  ...over,
});

describe('the live block of several accounts', () => {
  it('is one line per account under named columns, an account not started yet included', () => {
    const lines = accountsProgressLines({
      accounts: [
        { account: 'acme', progress: progress() },
        { account: 'globex-europe', progress: progress({ elapsed_ms: 80_000, requests: 12, rate_limited: 0 }) },
        { account: 'initech' },
      ],
    });
    expect(lines).toEqual([
      'sync of 3 accounts  1m20s',
      '  account            rows  requests  streams  now',
      '  acme               1300       250      1/3  conversations+contacts+messages ~2m00s',
      '  globex-europe      1300        12      1/3  conversations+contacts+messages ~2m00s',
      '  initech               -         -        -  starting',
    ]);
  });

  it('fits 80 columns with the longest stream running, for a dozen accounts of names up to 9 characters', () => {
    const lines = accountsProgressLines({
      accounts: Array.from({ length: 12 }, (_, i) => ({
        account: `account${String(i).padStart(2, '0')}`,
        progress: progress({ paused_ms_left: i === 0 ? 65_000 : undefined }),
      })),
    });
    expect(lines).toHaveLength(14);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('says what holds an account: a 429 pause, the rate window; then finishing once every stream ended', () => {
    expect(accountNow(progress({ paused_ms_left: 3_000 }))).toBe('paused by a 429, ~3s');
    expect(accountNow(progress({ waiting_for_window: { left_ms: 20_000 } }))).toBe('waiting for the rate window, ~20s');
    expect(accountNow(progress({ waiting_for_window: {} }))).toBe('waiting for the rate window');
    expect(accountNow(progress({ streams: [stream('inboxes', 'done'), stream('holidays', 'failed')] }))).toBe(
      'finishing',
    );
  });

  it('lists each running backfill under the accounts, by account', () => {
    const lines = accountsProgressLines({
      accounts: [
        {
          account: 'acme',
          progress: progress({ backfill: { status: 'running', done: 300, total: 1000, eta_ms: 120_000 } }),
        },
        { account: 'globex', progress: progress({ backfill: { status: 'complete', done: 50, total: 50 } }) },
      ],
    });
    expect(lines.slice(4)).toEqual(['  backfill of acme: 300 of 1000 conversations read, ~2m00s left']);
  });
});
