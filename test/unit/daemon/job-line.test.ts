import { describe, expect, it } from 'vitest';
import { jobLine } from '../../../src/daemon/job-line.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';

const summary = (rows: number, requests: number) =>
  ({
    tables: { conversations: { rows, tombstones: 0, rejected: 0 }, contacts: { rows: 0, tombstones: 0, rejected: 0 } },
    requests: { requests, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 },
  }) as unknown as SyncSummary;

describe('jobLine', () => {
  it('one account: outcome, duration, rows written, requests', () => {
    expect(
      jobLine('sync', 'succeeded', 60_000, { runs: [{ outcome: 'succeeded', summary: summary(4681, 565) }] }),
    ).toBe('sync succeeded in 1m00s: 4681 rows written, 565 requests');
    expect(
      jobLine('sync', 'interrupted', 2_000, { runs: [{ outcome: 'interrupted', summary: summary(300, 301) }] }),
    ).toBe('sync interrupted in 2s: 300 rows written, 301 requests');
  });

  it('several accounts: the sums, then each account, a failed one with its code; the load that followed', () => {
    expect(
      jobLine('sync', 'partial', 95_000, {
        runs: [
          { account: 'acme', outcome: 'succeeded', summary: summary(100, 40) },
          { account: 'globex', outcome: 'failed', failure: { code: 'API_UNAUTHORIZED', message: '401' } },
        ],
        load: { target: 'duckdb:/var/lib/helpdesk/state.duckdb', manifests_loaded: 1 },
      }),
    ).toBe(
      'sync partial in 1m35s: 100 rows written, 40 requests; accounts: acme succeeded, globex failed (API_UNAUTHORIZED); ' +
        'loaded 1 manifest into duckdb:/var/lib/helpdesk/state.duckdb',
    );
  });

  it('a push says how it ended and how long it took', () => {
    expect(jobLine('push', 'succeeded', 3_000, { runs: [{ outcome: 'succeeded' }] })).toBe('push succeeded in 3s');
  });
});
