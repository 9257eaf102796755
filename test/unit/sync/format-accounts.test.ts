import { describe, expect, it } from 'vitest';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { accountsLine, accountsLines, formatAccountsSummary } from '../../../src/sync/accounts/format-accounts.js';
import type { AccountOutcome } from '../../../src/sync/accounts/sync-accounts.js';
import type { SyncSummary, TableCounts } from '../../../src/sync/run-sync.js';

function committed(account: string, status: 'succeeded' | 'partial'): AccountOutcome {
  const tables = Object.fromEntries(TABLE_NAMES.map((t) => [t, { rows: 0, tombstones: 0, rejected: 0 }])) as Record<
    TableName,
    TableCounts
  >;
  tables.conversations = { rows: 12, tombstones: 0, rejected: 0 };
  const summary: SyncSummary = {
    run_id: `20260310T120000Z-${account.slice(0, 6).padEnd(6, 'x')}`,
    status,
    started_at: '2026-03-10T12:00:00.000Z',
    finished_at: '2026-03-10T12:00:02.000Z',
    duration_ms: 2_000,
    streams: ['conversations'],
    full_refresh: [],
    tables,
    sanitized_strings: 0,
    coerced_values: 0,
    requests: { requests: 42, byStatus: { '200': 42 }, retries: 0, rateLimited: 0, waitedMs: 0 },
    warnings: [],
    skipped_streams: [],
    failed_streams: [],
    conversations_scanned: 12,
    conversations_changed: 12,
    conversations_relisted: 0,
    messages_fetched: 12,
    forbidden_skipped: 0,
    unreadable_skipped: 0,
    listing_repairs: 0,
    listing_recovered: 0,
    completeness: [],
  };
  return {
    account,
    status,
    durationMs: 2_000,
    result: {
      summary,
      manifestKey: `_manifests/${summary.run_id}.json`,
      recovered: { committed: 0, superseded: 0 },
      location: `s3://lake/helpdesk/${account}/`,
    },
  };
}

const failed = (account: string, code = 'API_UNAUTHORIZED'): AccountOutcome => ({
  account,
  status: 'failed',
  durationMs: 10,
  failure: { code, message: `GET https://${account}.example.com/v1/me failed with status 401 (${code})`, exitCode: 1 },
});

describe('the summary of several accounts', () => {
  it('puts each account under its name, a failed one with its reason on a line of its own, a blank line between', () => {
    const text = formatAccountsSummary([committed('acme', 'succeeded'), failed('globex')]);
    const blocks = text.split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[0]?.split('\n')[0]).toBe('account acme');
    expect(blocks[0]?.split('\n')[1]).toMatch(/^ {2}sync 20260310T120000Z-acmexx succeeded in 2s/);
    // Each account's output is where its own summary says, under its prefix.
    expect(blocks[0]?.split('\n')[2]).toBe('    output in s3://lake/helpdesk/acme/');
    expect(blocks[1]).toBe(
      [
        'account globex failed (API_UNAUTHORIZED)',
        '  GET https://globex.example.com/v1/me failed with status 401 (API_UNAUTHORIZED)',
        '  the other accounts ran; the next run retries this one',
      ].join('\n'),
    );
    expect(blocks[2]).toBe(
      [
        'accounts: acme succeeded, globex failed (API_UNAUTHORIZED)',
        'partial: some accounts failed or ended partial (above); the others committed',
      ].join('\n'),
    );
  });

  it('says nothing more when every account succeeded, and that every one failed when each did', () => {
    const ok = formatAccountsSummary([committed('acme', 'succeeded'), committed('globex', 'succeeded')]);
    expect(ok.split('\n\n').at(-1)).toBe('accounts: acme succeeded, globex succeeded');
    const none = formatAccountsSummary([failed('acme'), failed('globex', 'STATE_LOCKED')]);
    expect(none.split('\n\n').at(-1)).toBe(
      [
        'accounts: acme failed (API_UNAUTHORIZED), globex failed (STATE_LOCKED)',
        'failed: every account failed (above)',
      ].join('\n'),
    );
  });

  it('keeps its own lines within 80 columns, breaking the accounts line after a comma', () => {
    const many = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'vandelay', 'wonka'].map((a, i) =>
      i % 3 === 2 ? failed(a) : committed(a, i % 3 === 1 ? 'partial' : 'succeeded'),
    );
    const lines = accountsLines(many);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^accounts: acme succeeded, /);
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
    // Nothing lost or cut: read back as one line, it is the log's line.
    expect(lines.map((l) => l.trim()).join(' ')).toBe(accountsLine(many));
    // Its own lines (headings, the outcome of the whole) fit too; an account's summary lines are its own.
    const text = formatAccountsSummary(many);
    for (const line of text.split('\n').filter((l) => !l.startsWith('  ')))
      expect(line.length, line).toBeLessThanOrEqual(80);
  });
});
