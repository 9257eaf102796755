import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { recordedLoad } from '../../../src/load/recorded-load.js';
import { silentLogger } from '../../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { recordLoadBesideState } from '../../../src/state/load-records.js';
import { readRunHistory } from '../../../src/state/run-history.js';
import { syncJob } from '../../../src/sync/sync-job.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';
import { CLI } from '../../support/pty-screen.js';
import { runProcess } from '../sync/cli-run.js';
import { openBrowser } from './browser.js';
import { DOCS_SCREENSHOT, pageShape, shapeOf, writeScreenshot } from './screenshot.js';

/**
 * The status page as a person opens it: served by a real daemon process at `/`
 * of its metrics listener and written by `report --html`, loaded in the headless
 * Chromium that `npm ci` installs (browser.ts). The state behind it holds three syncs of a recent-first first sync
 * (a backfill page per run) against a sandbox that allows 50 requests per 2 s
 * window (configured so) and answers a few requests 429 at random (seeded).
 */
let sandbox: RunningSandbox;
let dir: string;
let configPath: string;
let statePath: string;
const shots = mkdtempSync(join(tmpdir(), 'hs-status-shots-'));

beforeAll(async () => {
  // 4 % of requests answered 429 (seeded, Retry-After 1 s): each run's chart has 429s to mark,
  // whatever the machine's pace (a probe 429 of the window's learning needs the share spent in
  // time). The window is configured: a 429 that is no window's end would teach a wrong length.
  sandbox = await startSandbox({
    port: 0,
    seed: 21,
    conversations: 500,
    rateLimit: 50,
    rateWindowSeconds: 2,
    faults: '429:0.04:1',
  });
  dir = mkdtempSync(join(tmpdir(), 'hs-status-'));
  statePath = join(dir, 'state', 'state.sqlite');
  const raw = {
    source: {
      base_url: sandbox.baseUrl,
      token: 'sandbox-admin',
      rate_limit: { requests_per_minute: 1500, window_seconds: 2 },
    },
    conversations: { first_sync: 'recent_first', recent_days: 7, backfill_pages_per_run: 1 },
    reports: { lookback_days: 1, start_date: new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10) },
    destination: { type: 'local', path: join(dir, 'out') },
    state: { path: statePath },
    schedule: { sync: '0 0 1 1 *' },
    metrics: { listen: '127.0.0.1:0' },
  };
  configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(raw));
  const config = parseConfig(raw, 'test', {});
  for (let i = 0; i < 3; i++) await syncJob(config, { logger: silentLogger() });
  // A load into the DuckDB file beside the state: the page's warehouse section has a load to show.
  await recordedLoad(config, { logger: silentLogger() }, recordLoadBesideState);
}, 180_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(shots, { recursive: true, force: true });
});

const digits = (text: string | null) => Number((text ?? '').replace(/[^\d-]/g, ''));
const field = (page: Page, scope: string, name: string) =>
  page.locator(`${scope} [data-field="${name}"]`).first().textContent();

/** Every figure the page shows against the state's own records; `drawnBy` says whether a next run may be claimed. */
async function expectFiguresOfState(page: Page, drawnBy: 'daemon' | 'report'): Promise<void> {
  const db = new Database(statePath, { readonly: true });
  const runs = readRunHistory(db);
  db.close();
  expect(runs.length).toBe(3);
  for (const run of runs) {
    const s = run.summary as SyncSummary;
    const row = `tr[data-run="${run.run_id}"]`;
    expect(digits(await field(page, row, 'requests')), run.run_id).toBe(s.requests.requests);
    expect(digits(await field(page, row, 'rate-limited')), run.run_id).toBe(s.requests.rateLimited);
    const rows = Object.values(s.tables).reduce((n, c) => n + c.rows, 0);
    expect(digits(await field(page, row, 'rows')), run.run_id).toBe(rows);
    for (const [table, c] of Object.entries(s.tables).filter(([, c]) => c.rows > 0)) {
      expect(await page.locator(`${row} [data-table="${table}"]`).textContent()).toBe(
        `${table} ${c.rows}`.replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f'),
      );
    }
  }
  const newest = runs[0]?.summary as SyncSummary;
  for (const f of newest.completeness) {
    const row = `tr[data-stream="${f.stream}"]`;
    expect(digits(await field(page, row, 'expected')), f.stream).toBe(f.expected);
    expect(digits(await field(page, row, 'live')), f.stream).toBe(f.live);
    expect(digits(await field(page, row, 'unexplained')), f.stream).toBe(f.unexplained);
    // A stream holding more than the API counts is never called complete; messages count threads.
    const state =
      f.unexplained > 0
        ? 'incomplete'
        : f.live > f.expected
          ? 'more held'
          : f.live < f.expected
            ? 'explained'
            : 'complete';
    expect(await field(page, row, 'state'), f.stream).toBe(state);
    expect(await field(page, row, 'unit'), f.stream).toBe(f.stream === 'messages' ? 'threads' : f.stream);
  }
  // Each table the runs wrote has the age of its newest rows; the output is where the config says.
  for (const table of Object.keys(newest.tables)) {
    const wrote = runs.some(
      (r) => ((r.summary as SyncSummary).tables as Record<string, { rows: number }>)[table]?.rows,
    );
    const cell = await field(page, `tr[data-table="${table}"]`, 'newest-row');
    if (wrote) expect(cell, table).toMatch(/^\S+ ago 20\d\d-\d\d-\d\d \d\d:\d\d UTC$/);
  }
  expect(await page.locator('[data-field="output"]').textContent()).toBe(join(dir, 'out'));
  const warehouse = `table.warehouse tr[data-target="duckdb:${join(dir, 'state', 'state.duckdb')}"]`;
  expect(await field(page, warehouse, 'lag')).toBe(`up to date newest loaded ${runs[0]?.run_id}`);
  // The chart is of the newest run that recorded its traffic: its windows add up to the run's requests.
  const charted = runs.find((r) => r.traffic) as (typeof runs)[number];
  expect(digits(await page.locator('[data-field="traffic-requests"]').textContent())).toBe(
    (charted.summary as SyncSummary).requests.requests,
  );
  expect(await page.locator('svg[data-chart="traffic"] rect.bar:has(title)').count()).toBe(
    charted.traffic?.windows.length,
  );
  const backfill = runs.map((r) => (r.summary as SyncSummary).backfill).find(Boolean);
  const card = (await page.locator('[data-card="backfill"]').textContent()) ?? '';
  if (backfill)
    expect(digits(card.split('conversations read')[0] ?? '')).toBe(Number(`${backfill.done}${backfill.total}`));
  else expect(card).toContain('no recent-first backfill');
  const next = await page.locator('[data-field="next-run"]').first().textContent();
  // The daemon runs the schedule; a copy written by report --html claims no next run.
  if (drawnBy === 'daemon') expect(next).toMatch(/^20\d\d-01-01 00:00 UTC$/);
  else expect(next).toBe('no daemon drew this page');
}

/** The charts as a person sees them: wide enough to read, with legends, axes, the 429s as points. */
async function expectReadableCharts(page: Page): Promise<void> {
  const db = new Database(statePath, { readonly: true });
  const runs = readRunHistory(db);
  db.close();
  const traffic = page.locator('svg[data-chart="traffic"]');
  expect((await traffic.boundingBox())?.width).toBeGreaterThanOrEqual(600);
  expect(await traffic.locator('.legend-row text').allTextContents()).toEqual([
    'requests sent',
    'of them answered 429',
    expect.stringMatching(/^the run's share: \d+ per window$/),
    '429s (count)',
  ]);
  expect(await traffic.locator('text.axis-title').allTextContents()).toEqual([
    'requests per window',
    expect.stringMatching(
      /^time from the run's first request · \d+ windows? of \d+ s \((learned|configured|assumed)\)$/,
    ),
  ]);
  const charted = runs.find((r) => r.traffic)?.traffic;
  const limitedWindows = charted?.windows.filter((w) => w.rate_limited > 0).length ?? 0;
  // The sandbox answers some requests 429: at least one point, one per window that met any.
  expect(limitedWindows).toBeGreaterThan(0);
  expect(await traffic.locator('circle.point429:has(title)').count()).toBe(limitedWindows);
  for (const point of await traffic.locator('circle.point429:has(title)').all())
    expect(await point.isVisible()).toBe(true);
  // A bar above the share is said under the chart, as what it is.
  const over = charted?.windows.filter(
    (w) => w.requests > (runs.find((r) => r.traffic)?.traffic?.limit_per_window ?? 0),
  );
  const note = page.locator('[data-field="over-share"]');
  if (over?.length) expect(await note.textContent()).toMatch(/^window \d+: \d+ sent, \d+ above the share of \d+/);
  else expect(await note.count()).toBe(0);
  const runsChart = page.locator('svg[data-chart="runs"]');
  expect((await runsChart.boundingBox())?.width).toBeGreaterThanOrEqual(600);
  expect(await runsChart.locator('rect.run-bar:has(title)').count()).toBe(runs.length);
  expect(await runsChart.locator('rect.rows-bar:has(title)').count()).toBe(runs.length);
  expect(await runsChart.locator('text.axis-title').allTextContents()).toEqual([
    'duration',
    'rows written',
    `run started (UTC) · the last ${runs.length} runs, oldest on the left`,
  ]);
  // Every legend's words are drawn inside their chart, none cut off at its edge.
  for (const chart of [traffic, runsChart]) {
    const box = (await chart.boundingBox()) as { x: number; width: number };
    for (const words of await chart.locator('.legend-row text').all()) {
      const at = (await words.boundingBox()) as { x: number; width: number };
      expect(at.x + at.width, (await words.textContent()) ?? '').toBeLessThanOrEqual(box.x + box.width);
    }
  }
  // The completeness history: a cell per run, each wide enough to see.
  const cells = page.locator('tr[data-stream="conversations"] svg.history rect.cell');
  expect(await cells.count()).toBe(runs.length);
  for (const cell of await cells.all()) expect((await cell.boundingBox())?.width).toBeGreaterThanOrEqual(16);
}

/** What a self-contained page must never do or hold. */
function expectSelfContained(html: string): void {
  expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
  expect(html).not.toMatch(/\b(src|href)=/i);
  expect(html).not.toContain('sandbox-admin');
  expect(html).not.toMatch(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/);
}

describe('the status page in Chromium', () => {
  it("the daemon serves it at / of its metrics listener: no console error, nothing fetched, the state's figures", async (ctx) => {
    // The browser first: if it cannot start, no daemon is left running behind the failed test.
    const browser = await openBrowser(ctx);
    const daemon = spawn(process.execPath, [CLI, 'daemon', '--config', configPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    daemon.stderr.on('data', (c) => {
      stderr += c;
    });
    try {
      let address: string | undefined;
      for (let i = 0; i < 300 && !address; i++) {
        address = /"event":"daemon\.metrics_listening","address":"([^"]+)"/.exec(stderr)?.[1];
        if (!address) await new Promise((r) => setTimeout(r, 100));
      }
      expect(address, stderr).toBeDefined();
      const response = await browser.page.goto(`http://${address}/`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      expectSelfContained(await response!.text());
      await expectFiguresOfState(browser.page, 'daemon');
      await expectReadableCharts(browser.page);
      expect(browser.errors).toEqual([]);
      expect(browser.requests).toEqual([`http://${address}/`]);
      const png = await browser.page.screenshot({ fullPage: true });
      expect(png.length).toBeGreaterThan(20_000);
      const shape = await pageShape(browser.page);
      // `HELPDESK_SYNC_WRITE_SCREENSHOT=1` regenerates the picture in docs/operations.md, saying what page it shows.
      if (process.env.HELPDESK_SYNC_WRITE_SCREENSHOT === '1') writeScreenshot(DOCS_SCREENSHOT, png, shape);
      expect(
        shapeOf(DOCS_SCREENSHOT),
        'docs/images/status-page.png shows another page than the daemon serves: regenerate it with ' +
          '`npm run build && HELPDESK_SYNC_WRITE_SCREENSHOT=1 npx vitest run test/integration/report/status-page.test.ts`',
      ).toBe(shape);
    } finally {
      await browser.close();
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('close', r));
    }
  }, 60_000);

  it('report --html writes the same page to a file, from the state alone', async (ctx) => {
    const file = join(dir, 'status.html');
    const result = await runProcess(process.execPath, [CLI, 'report', '--html', file, '--config', configPath]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`status page of 3 run(s) written to ${file}\n`);
    const html = readFileSync(file, 'utf8');
    expectSelfContained(html);
    const browser = await openBrowser(ctx);
    try {
      await browser.page.goto(pathToFileURL(file).href);
      await expectFiguresOfState(browser.page, 'report');
      await expectReadableCharts(browser.page);
      expect(browser.errors).toEqual([]);
      expect(browser.requests).toEqual([pathToFileURL(file).href]);
      await browser.page.screenshot({ path: join(shots, 'report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
