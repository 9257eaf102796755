import { describe, expect, it } from 'vitest';
import { renderAccountsStatusPage } from '../../../src/report/render-accounts-page.js';
import { renderStatusPage } from '../../../src/report/render-status-page.js';
import type { AccountsStatusInput } from '../../../src/report/status-view.js';
import type { RunHistoryEntry } from '../../../src/state/run-history.js';
import { completenessFigure } from '../../../src/streams/completeness.js';

const run = (run_id: string, started_at: string, over: Record<string, unknown> = {}): RunHistoryEntry => ({
  run_id,
  started_at,
  finished_at: started_at,
  status: 'finished',
  summary: {
    status: 'succeeded',
    duration_ms: 1000,
    tables: { conversations: { rows: 3, tombstones: 0, rejected: 0 } },
    requests: { requests: 10, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 },
    completeness: [completenessFigure('conversations', 10, 10)],
    failed_streams: [],
    ...over,
  },
});

const input = (over: Partial<AccountsStatusInput> = {}): AccountsStatusInput => ({
  generatedAt: new Date('2026-03-10T12:05:00Z'),
  schedule: { expression: '*/15 * * * *', timezone: 'UTC', next: new Date('2026-03-10T12:15:00Z') },
  accounts: [
    {
      name: 'acme',
      source: 'https://acme.example.com/v1',
      runs: [
        run('20260310T120000Z-acme02', '2026-03-10T12:00:00Z', {
          status: 'partial',
          failed_streams: [{ stream: 'holidays', code: 'API_REDIRECT', message: 'redirected to another origin' }],
        }),
        run('20260310T114500Z-acme01', '2026-03-10T11:45:00Z'),
      ],
    },
    {
      name: 'globex',
      source: 'https://globex.example.com/v1',
      runs: [run('20260310T114500Z-globx1', '2026-03-10T11:45:00Z')],
      // Seen by the daemon after globex's newest run: a run that never reached the state.
      failure: {
        at: new Date('2026-03-10T12:00:01Z'),
        code: 'API_UNAUTHORIZED',
        message: 'GET /v1/me failed with status 401',
      },
    },
    { name: 'initech', source: 'https://initech.example.com/v1', runs: [] },
  ],
  ...over,
});

/** The text of `<tag …attr…>…</tag>` that holds `attr`, without its tags. */
const element = (html: string, tag: string, attr: string) =>
  new RegExp(`<${tag}[^>]*${attr}[^>]*>(.*?)</${tag}>`, 's').exec(html)?.[1] ?? '';
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('the status page of several accounts', () => {
  it('opens with every account’s last outcome, in the order of the config, each linking to its section', () => {
    const html = renderAccountsStatusPage(input());
    const rows = [...html.matchAll(/<tr data-account="([^"]+)">(.*?)<\/tr>/gs)].map((m) => [m[1], text(m[2] ?? '')]);
    expect(rows).toEqual([
      [
        'acme',
        'acme partial failed: holidays (API_REDIRECT) 2026-03-10 12:00 UTC complete all 1 streams: nothing missing –',
      ],
      ['globex', 'globex failed API_UNAUTHORIZED 2026-03-10 12:00 UTC complete all 1 streams: nothing missing –'],
      ['initech', 'initech no run yet – not measured yet –'],
    ]);
    for (const name of ['acme', 'globex', 'initech']) {
      expect(html).toContain(`<a href="#account-${name}">${name}</a>`);
      expect(html).toContain(`<section class="account" id="account-${name}" data-account="${name}">`);
    }
    expect(text(element(html, 'p', 'data-field="outcomes"'))).toBe('1 failed, 1 partial, 1 no run yet');
    // The schedule is said once, at the top, not in every account's section.
    expect(html.match(/data-card="next-run"/g)).toHaveLength(1);
    expect(html.indexOf('data-card="next-run"')).toBeLessThan(html.indexOf('<section class="account"'));
  });

  it('gives each account its own section: its API, last run, completeness, traffic and runs, and no other account’s', () => {
    const html = renderAccountsStatusPage(input());
    const section = (name: string) =>
      new RegExp(
        `<section class="account" id="account-${name}"[^>]*>(.*?)(?=<section class="account"|</main>)`,
        's',
      ).exec(html)?.[1] ?? '';
    const acme = section('acme');
    expect(acme).toContain('API <code>https://acme.example.com/v1</code>');
    expect([...acme.matchAll(/<tr data-run="([^"]+)">/g)].map((m) => m[1])).toEqual([
      '20260310T120000Z-acme02',
      '20260310T114500Z-acme01',
    ]);
    expect(text(element(acme, 'section', 'data-card="last-run"'))).toMatch(
      /^Last run partial started 2026-03-10 12:00 UTC/,
    );
    const globex = section('globex');
    expect([...globex.matchAll(/<tr data-run="([^"]+)">/g)].map((m) => m[1])).toEqual(['20260310T114500Z-globx1']);
    // The daemon saw globex fail after its newest recorded run: that is its last run.
    expect(text(element(globex, 'section', 'data-card="last-run"'))).toBe(
      'Last run failed at 2026-03-10 12:00 UTC API_UNAUTHORIZED: GET /v1/me failed with status 401',
    );
    expect(section('initech')).toContain('No run is recorded in the state yet.');
  });

  it("shows each account's load targets in its own section, and never loaded where none is recorded", () => {
    const loaded = input();
    (loaded.accounts[0] as AccountsStatusInput['accounts'][number]).warehouse = [
      {
        target: 'postgres://loader:***@db/w',
        last: {
          target: 'postgres://loader:***@db/w',
          listed_at: '2026-03-10T12:00:30.000Z',
          finished_at: '2026-03-10T12:01:00.000Z',
          outcome: 'failed',
          manifests_loaded: 1,
          rows: 1234,
          error: { code: 'LOAD_SCHEMA_MISMATCH', run_id: '20260310T120000Z-acme02' },
          waiting: ['20260310T120000Z-acme02'],
        },
        lag: {
          manifests: 1,
          newest_committed: { run_id: '20260310T120000Z-acme02', finished_at: '2026-03-10T12:00:20.000Z' },
          newest_loaded: { run_id: '20260310T114500Z-acme01', finished_at: '2026-03-10T11:45:20.000Z' },
        },
      },
    ];
    (loaded.accounts[1] as AccountsStatusInput['accounts'][number]).warehouse = [];
    const html = renderAccountsStatusPage(loaded);
    const section = (name: string) =>
      new RegExp(
        `<section class="account" id="account-${name}"[^>]*>(.*?)(?=<section class="account"|</main>)`,
        's',
      ).exec(html)?.[1] ?? '';
    expect(text(element(section('acme'), 'tr', 'data-target='))).toBe(
      'postgres://loader:***@db/w failed LOAD_SCHEMA_MISMATCH at manifest 20260310T120000Z-acme02 4m00s ago ' +
        '2026-03-10 12:01 UTC 1 1 234 1 manifest, 15m00s behind newest loaded 20260310T114500Z-acme01',
    );
    expect(section('globex')).toContain('never loaded');
    expect(section('globex')).not.toContain('data-target=');
  });

  it('shows a failure only while no newer run has been recorded', () => {
    const later = input();
    const globex = later.accounts[1] as AccountsStatusInput['accounts'][number];
    globex.runs = [run('20260310T121500Z-globx2', '2026-03-10T12:15:00Z'), ...globex.runs];
    const html = renderAccountsStatusPage(later);
    expect(text(element(html, 'tr', 'data-account="globex"'))).toMatch(/^globex succeeded 2026-03-10 12:15 UTC/);
  });

  it('says a sync of an account is running now, in its row and its section', () => {
    const live = input();
    (live.accounts[2] as AccountsStatusInput['accounts'][number]).live = {
      run_id: 'r',
      elapsed_ms: 65_000,
      requests_per_minute: 300,
      requests: 42,
      rate_limited: 0,
      waited_ms: 0,
      streams: [],
    };
    const html = renderAccountsStatusPage(live);
    expect(text(element(html, 'tr', 'data-account="initech"'))).toContain('running now: 1m05s');
    expect(html).toContain('running now: 1m05s, 42 requests');
  });

  it('is self-contained: no script, nothing fetched, only links within the page; no e-mail address', () => {
    const mailed = input();
    (mailed.accounts[1] as AccountsStatusInput['accounts'][number]).failure = {
      at: new Date('2026-03-10T12:00:01Z'),
      code: 'API_FORBIDDEN',
      message: 'forbidden for agent ops@globex.example.com',
    };
    const html = renderAccountsStatusPage(mailed);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\bsrc=/i);
    expect([...html.matchAll(/\bhref="([^"]*)"/g)].map((m) => m[1])).toEqual([
      '#account-acme',
      '#account-globex',
      '#account-initech',
    ]);
    expect(html).not.toContain('ops@globex.example.com');
    expect(html).toContain('forbidden for agent [e-mail]');
  });
});

describe('the status page of one account of several', () => {
  it('names the account in its title and header', () => {
    const html = renderStatusPage({
      runs: [],
      generatedAt: new Date('2026-03-10T12:05:00Z'),
      source: 'https://acme.example.com/v1',
      account: 'acme',
    });
    expect(html).toContain('<title>helpdesk-sync status: acme</title>');
    expect(html).toContain('<p>account <strong>acme</strong> · API <code>https://acme.example.com/v1</code>');
    expect(html).not.toContain('<section class="account"');
  });
});
