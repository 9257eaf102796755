import { describe, expect, it } from 'vitest';
import { figureState } from '../../../src/report/completeness-state.js';
import { renderAccountsStatusPage } from '../../../src/report/render-accounts-page.js';
import { renderStatusPage } from '../../../src/report/render-status-page.js';
import type { StatusInput } from '../../../src/report/status-view.js';
import type { RunHistoryEntry } from '../../../src/state/run-history.js';
import { completenessFigure } from '../../../src/streams/completeness.js';

const figures = [
  completenessFigure('conversations', 427, 427),
  completenessFigure('messages', 427, 427),
  completenessFigure('contacts', 112, 121, { never_tombstoned: -9 }),
];

const run = (run_id: string, started_at: string, over: Record<string, unknown> = {}): RunHistoryEntry => ({
  run_id,
  started_at,
  finished_at: new Date(Date.parse(started_at) + 60_000).toISOString(),
  status: 'finished',
  summary: {
    status: 'succeeded',
    started_at,
    finished_at: new Date(Date.parse(started_at) + 60_000).toISOString(),
    duration_ms: 60_000,
    streams: ['conversations', 'messages', 'contacts', 'users'],
    tables: {
      conversations: { rows: 3, tombstones: 0, rejected: 0 },
      messages: { rows: 9, tombstones: 1, rejected: 0 },
      users: { rows: 0, tombstones: 0, rejected: 0 },
    },
    requests: { requests: 287, byStatus: {}, retries: 1, rateLimited: 1, waitedMs: 0 },
    completeness: figures,
    failed_streams: [],
    ...over,
  },
});

const runs = [
  {
    ...run('20261128T120000Z-newest', '2026-11-28T12:00:00.000Z'),
    traffic: {
      run_id: '20261128T120000Z-newest',
      window_ms: 60_000,
      window_source: 'learned' as const,
      limit_per_window: 300,
      windows: [
        { requests: 280, rate_limited: 1 },
        { requests: 7, rate_limited: 0 },
      ],
    },
  },
  run('20261128T110000Z-middle', '2026-11-28T11:00:00.000Z', {
    tables: { conversations: { rows: 0, tombstones: 0, rejected: 0 }, users: { rows: 7, tombstones: 0, rejected: 0 } },
  }),
  run('20261128T100000Z-oldest', '2026-11-28T10:00:00.000Z', { status: 'interrupted', completeness: [] }),
];

const page = (over: Partial<StatusInput> = {}) =>
  renderStatusPage({
    runs,
    generatedAt: new Date('2026-11-28T12:31:00Z'),
    source: 'http://127.0.0.1:4010/v1',
    output: '/srv/helpdesk/out',
    schedule: { expression: '*/15 * * * *', timezone: 'UTC', next: new Date('2026-11-28T12:45:00Z') },
    drawnBy: 'daemon',
    ...over,
  });

/** The element that holds `attr`, from its opening tag to its closing one. */
const element = (html: string, tag: string, attr: string) =>
  new RegExp(`<${tag}[^>]*${attr}[^>]*>(.*?)</${tag}>`, 's').exec(html)?.[1] ?? '';
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
    .trim();

describe('completeness on the page', () => {
  it('a stream holding more than the API counts is "more held", with its reason, never "complete"', () => {
    const row = element(page(), 'tr', 'data-stream="contacts"');
    expect(text(element(row, 'td', 'data-field="state"'))).toBe('more held');
    expect(row).not.toContain('>complete<');
    expect(text(element(row, 'td', 'data-field="difference"'))).toBe('9 more held: never_tombstoned');
    // The card says what differs rather than "complete".
    const card = text(element(page(), 'section', 'data-card="completeness"'));
    expect(card).toBe('Completeness explained nothing missing in 3 streams; contacts 9 more held: never_tombstoned');
  });

  it('counts messages in threads', () => {
    expect(text(element(page(), 'td', 'data-field="unit"'))).toBe('conversations');
    const row = element(page(), 'tr', 'data-stream="messages"');
    expect(text(element(row, 'td', 'data-field="unit"'))).toBe('threads');
  });

  it('draws its history in cells a person can see: 18 px each, one per run that measured it', () => {
    const row = element(page(), 'tr', 'data-stream="contacts"');
    const history = /<svg class="history" data-runs="(\d+)"[^>]* width="(\d+)"/.exec(row);
    expect(history?.slice(1).map(Number)).toEqual([2, 44]);
    expect(row.match(/<rect class="cell more" x="\d+" y="1" width="18" height="18"/g)).toHaveLength(2);
  });
});

describe('a figure is complete only when nothing differs', () => {
  const state = (f: ReturnType<typeof completenessFigure>) => figureState(f).label;
  it('reasons that cancel out are explained, a surplus no reason explains is more held, not explained', () => {
    expect(state(completenessFigure('conversations', 300, 300))).toBe('complete');
    expect(state(completenessFigure('conversations', 300, 300, { past_search_cap: 5, kept_unlisted: -5 }))).toBe(
      'explained',
    );
    expect(state(completenessFigure('conversations', 300, 250, { past_search_cap: 50 }))).toBe('explained');
    // 5 fewer held than the API counts, but the search cap explains 10: 5 held for no known reason.
    const surplus = completenessFigure('conversations', 100, 95, { past_search_cap: 10 });
    expect(state(surplus)).toBe('more held');
    const html = page({
      runs: [run('20261128T120000Z-newest', '2026-11-28T12:00:00.000Z', { completeness: [surplus] })],
    });
    expect(text(element(html, 'section', 'data-card="completeness"'))).toBe(
      'Completeness more held nothing missing in 1 stream; conversations 10 past_search_cap; 5 more held for no known reason',
    );
  });
});

describe('the request chart', () => {
  it('one 429 in 287 requests is a point with its count, not a red window; with a legend and both axes named', () => {
    const chart = /<svg class="chart" data-chart="traffic".*?<\/svg>/s.exec(page())?.[0] ?? '';
    expect(chart.match(/<rect class="bar"[^>]*><title>/g)).toHaveLength(2);
    expect(chart).not.toMatch(/class="bar limited"/);
    expect(chart.match(/<circle class="point429"[^>]*><title>window 1: 1 answered 429</g)).toHaveLength(1);
    expect(chart).toContain('>1 × 429</text>');
    expect(text(element(chart, 'g', 'class="legend-row"'))).toBe(
      "requests sent of them answered 429 the run's share: 300 per window 429s (count)",
    );
    // The request answered 429 is the red top of its bar: sent, counted, refused.
    const plot = chart.replace(/<g class="legend-row">.*?<\/g>/s, '');
    expect(plot.match(/<rect class="bar refused"/g)).toHaveLength(1);
    expect(chart).toContain('>requests per window</text>');
    expect(text(chart)).toContain("time from the run's first request · 2 windows of 60 s (learned)");
    // The y axis is in requests: its top tick is above the share.
    expect([...chart.matchAll(/<text class="tick"[^>]*text-anchor="end">([^<]+)</g)].map((m) => m[1])).toEqual([
      '0',
      '100',
      '200',
      '300',
      '400',
    ]);
  });
});

describe('a bar above the share', () => {
  const traffic = (windows: Array<{ requests: number; rate_limited: number }>) =>
    page({
      runs: [
        {
          ...run('20261128T120000Z-newest', '2026-11-28T12:00:00.000Z'),
          traffic: {
            run_id: '20261128T120000Z-newest',
            window_ms: 60_000,
            window_source: 'learned' as const,
            limit_per_window: 300,
            windows,
          },
        },
      ],
    });
  it('is said under the chart as what it is: 429s sent, or the edges of windows', () => {
    expect(traffic([{ requests: 280, rate_limited: 1 }])).not.toContain('data-field="over-share"');
    expect(text(element(traffic([{ requests: 301, rate_limited: 1 }]), 'p', 'data-field="over-share"'))).toBe(
      'window 1: 301 sent, 1 above the share of 300; 1 answered 429 (a refused request is sent too), 300 answered within the share.',
    );
    expect(
      text(
        element(
          traffic([
            { requests: 300, rate_limited: 0 },
            { requests: 303, rate_limited: 1 },
          ]),
          'p',
          'data-field="over-share"',
        ),
      ),
    ).toBe(
      "window 2: 303 sent, 3 above the share of 300 (1 answered 429). The chart counts windows from the run's first " +
        'request; the queue opens one at the first request after the last one ended (later, after a pause), so a window ' +
        "of the chart can hold parts of two of the queue's: up to twice the share.",
    );
    expect(text(element(traffic([{ requests: 650, rate_limited: 0 }]), 'p', 'data-field="over-share"'))).toBe(
      "window 1: 650 sent, 350 above the share of 300, more than two windows' share: the queue overspent.",
    );
  });
});

describe('the duration axis', () => {
  it('ticks of a round step of time, each reading as it is', () => {
    const chart = /<svg class="chart" data-chart="runs".*?<\/svg>/s.exec(page())?.[0] ?? '';
    const ticks = [...chart.matchAll(/<text class="tick"[^>]*text-anchor="end">([^<]+)</g)].map((m) => m[1]);
    // Runs of 60 s, with room above them: four steps of 30 s (not 20 s, not a quarter rounded).
    expect(ticks.slice(0, 5)).toEqual(['0', '30s', '1m00s', '1m30s', '2m00s']);
  });
});

describe('the runs over time', () => {
  it('a bar per run for its duration, in its outcome’s colour, above the rows it wrote; oldest first; a legend', () => {
    const chart = /<svg class="chart" data-chart="runs".*?<\/svg>/s.exec(page())?.[0] ?? '';
    expect([...chart.matchAll(/<rect class="run-bar (\w+)"[^>]*><title>([^<]+)</g)].map((m) => m[1])).toEqual([
      'interrupted',
      'succeeded',
      'succeeded',
    ]);
    expect([...chart.matchAll(/<rect class="rows-bar"[^>]*><title>([^<]+)</g)].map((m) => m[1])).toEqual([
      '20261128T100000Z-oldest (11-28 10:00): 12 rows written',
      '20261128T110000Z-middle (11-28 11:00): 7 rows written',
      '20261128T120000Z-newest (11-28 12:00): 12 rows written',
    ]);
    expect(text(element(chart, 'g', 'class="legend-row"'))).toBe('succeeded interrupted rows written');
    expect(chart).toContain('>duration</text>');
    expect(chart).toContain('>rows written</text>');
  });
});

describe('freshness and the output', () => {
  it('per table, the age of its newest rows and of the last run that read it in full, from the summaries', () => {
    const html = page();
    const cell = (table: string, field: string) =>
      text(element(element(html, 'tr', `data-table="${table}"`), 'td', `data-field="${field}"`));
    // Newest run wrote conversations and messages; the middle one users.
    expect(cell('conversations', 'newest-row')).toBe('30m00s ago 2026-11-28 12:01 UTC');
    expect(cell('users', 'newest-row')).toBe('1h30m ago 2026-11-28 11:01 UTC');
    expect(cell('users', 'read-in-full')).toBe('not in the last 3 runs');
    expect(cell('thread_events', 'newest-row')).toBe('none in the last 3 runs');
    expect(cell('messages', 'read-in-full')).toBe('30m00s ago 2026-11-28 12:01 UTC');
    // Only the tables of streams the runs selected.
    expect(html).not.toContain('data-table="holidays"');
    expect(text(element(html, 'p', 'data-field="freshness-source"'))).toMatch(
      /^From the run summaries the state keeps/,
    );
  });

  it('says where the output is', () => {
    expect(text(element(page(), 'section', 'data-card="output"'))).toBe(
      "Output /srv/helpdesk/out each run's files listed by _manifests/<run>.json there",
    );
  });
});

describe('the next run', () => {
  it('the daemon says when schedule.sync fires next', () => {
    expect(text(element(page(), 'section', 'data-card="next-run"'))).toBe(
      'Next run 2026-11-28 12:45 UTC schedule.sync */15 * * * * (UTC)',
    );
  });

  it('a copy written by report --html claims no next run', () => {
    const html = page({ drawnBy: 'report', schedule: { expression: '*/15 * * * *', timezone: 'UTC' } });
    const card = text(element(html, 'section', 'data-card="next-run"'));
    expect(card).toBe(
      'Schedule no daemon drew this page written by report --html ; schedule.sync */15 * * * * (UTC) runs only under helpdesk-sync daemon',
    );
    expect(card).not.toMatch(/\d\d:\d\d UTC/);
    expect(html).toContain('written by report --html at 2026-11-28T12:31:00Z');
  });

  it('the page of several accounts follows the same rule, and shows each account’s output', () => {
    const accounts = (drawnBy: 'daemon' | 'report') =>
      renderAccountsStatusPage({
        generatedAt: new Date('2026-11-28T12:31:00Z'),
        drawnBy,
        schedule: {
          expression: '*/15 * * * *',
          timezone: 'UTC',
          ...(drawnBy === 'daemon' ? { next: new Date('2026-11-28T12:45:00Z') } : {}),
        },
        accounts: [
          { name: 'acme', source: 'https://acme.example.com/v1', output: '/srv/out/acme', runs },
          { name: 'globex', source: 'https://globex.example.com/v1', output: 's3://lake/helpdesk/globex/', runs: [] },
        ],
      });
    expect(text(element(accounts('daemon'), 'p', 'data-field="next-run"'))).toBe('2026-11-28 12:45 UTC');
    expect(text(element(accounts('report'), 'p', 'data-field="next-run"'))).toBe('no daemon drew this page');
    const html = accounts('daemon');
    expect([...html.matchAll(/data-field="output"><code>([^<]+)</g)].map((m) => m[1])).toEqual([
      '/srv/out/acme',
      's3://lake/helpdesk/globex/',
    ]);
    expect(text(element(html, 'tr', 'data-account="acme"'))).toContain(
      'explained nothing missing in 3 streams; contacts 9 more held: never_tombstoned',
    );
  });
});
