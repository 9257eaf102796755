import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type RunHistoryEntry, readRunHistory } from '../../../src/state/run-history.js';
import type { SyncSummary } from '../../../src/sync/sync-types.js';
import { CLI } from '../../support/pty-screen.js';
import { runProcess } from '../sync/cli-run.js';
import { openBrowser } from './browser.js';

/**
 * The status page of a config that lists two accounts, as a person opens it in Chromium:
 * served by a real daemon at `/` and written by `report --html`. One sandbox is reached as
 * two accounts on two origins (127.0.0.1 and localhost); acme syncs every stream, globex
 * three, and the state of each holds two syncs.
 */
let sandbox: RunningSandbox;
let dir: string;
let configPath: string;
const ACCOUNTS = ['acme', 'globex'] as const;
const shots = mkdtempSync(join(tmpdir(), 'hs-status-accounts-shots-'));

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 29, conversations: 40, rateLimit: 1_000_000, rateWindowSeconds: 60 });
  dir = mkdtempSync(join(tmpdir(), 'hs-status-accounts-'));
  const port = new URL(sandbox.baseUrl).port;
  configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      source: { rate_limit: { requests_per_minute: 100_000 } },
      accounts: [
        { name: 'acme', base_url: `http://127.0.0.1:${port}/v1`, token: 'sandbox-admin' },
        {
          name: 'globex',
          base_url: `http://localhost:${port}/v1`,
          token: 'sandbox-admin',
          streams: ['inboxes', 'users', 'tags'],
        },
      ],
      reports: { lookback_days: 0 },
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state', 'state.sqlite') },
      schedule: { sync: '0 0 1 1 *' },
      metrics: { listen: '127.0.0.1:0' },
    }),
  );
  for (let i = 0; i < 2; i++) {
    const sync = await runProcess(process.execPath, [CLI, 'sync', '--config', configPath]);
    expect(sync.code, sync.stderr).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(shots, { recursive: true, force: true });
});

/** The runs an account's own state holds, newest first. */
function runsOf(account: string): RunHistoryEntry[] {
  const db = new Database(join(dir, 'state', account, 'state.sqlite'), { readonly: true });
  try {
    return readRunHistory(db);
  } finally {
    db.close();
  }
}

const digits = (text: string | null) => Number((text ?? '').replace(/[^\d-]/g, ''));

/**
 * The overview at the top, then each account's section, against each account's state;
 * `drawnBy` says whether a next run may be claimed (the daemon runs the schedule, a copy does not).
 */
async function expectAccountsOfState(page: Page, drawnBy: 'daemon' | 'report'): Promise<void> {
  const rows = page.locator('table.accounts tbody tr');
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-account')))).toEqual([...ACCOUNTS]);
  for (const account of ACCOUNTS) {
    const runs = runsOf(account);
    expect(runs.length, account).toBe(2);
    const row = page.locator(`tr[data-account="${account}"]`);
    expect(await row.locator('.pill').first().textContent()).toBe('succeeded');
    expect(await row.locator('[data-field="completeness"]').textContent()).toMatch(
      /complete all \d+ streams: nothing missing/,
    );
    const section = page.locator(`section.account[data-account="${account}"]`);
    expect(await section.locator('h2').first().textContent()).toBe(account);
    // Its runs, and only its runs, with their own figures.
    expect(await section.locator('table.runs tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.run))).toEqual(
      runs.map((r) => r.run_id),
    );
    for (const run of runs) {
      const s = run.summary as SyncSummary;
      const tr = section.locator(`tr[data-run="${run.run_id}"]`);
      expect(digits(await tr.locator('[data-field="requests"]').textContent()), run.run_id).toBe(s.requests.requests);
      const written = Object.values(s.tables).reduce((n, c) => n + c.rows, 0);
      expect(digits(await tr.locator('[data-field="rows"]').textContent()), run.run_id).toBe(written);
    }
    const newest = runs[0]?.summary as SyncSummary;
    expect(
      await section.locator('table.completeness tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.stream)),
    ).toEqual(newest.completeness.map((f) => f.stream));
    expect(await section.locator('[data-card="last-run"] .pill').textContent()).toBe('succeeded');
    // The schedule is the config's, said once above the accounts.
    expect(await section.locator('[data-card="next-run"]').count()).toBe(0);
    // Where its files are: its own directory under the shared destination.
    expect(await section.locator('[data-card="output"] [data-field="output"]').textContent()).toBe(
      join(dir, 'out', account),
    );
  }
  const next = await page.locator('[data-card="next-run"] [data-field="next-run"]').textContent();
  if (drawnBy === 'daemon') expect(next).toMatch(/^20\d\d-01-01 00:00 UTC$/);
  else expect(next).toBe('no daemon drew this page');
  expect(await page.locator('[data-field="outcomes"]').textContent()).toBe('2 succeeded');
  // A name in the table leads to that account's section.
  await page.locator('a[href="#account-globex"]').click();
  expect(new URL(page.url()).hash).toBe('#account-globex');
  expect(await page.locator('#account-globex > h2').isVisible()).toBe(true);
  const top = await page.locator('#account-globex').evaluate((el) => Math.round(el.getBoundingClientRect().top));
  expect(top).toBeLessThanOrEqual(5);
}

function expectSelfContained(html: string): void {
  expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\bsrc=/i);
  for (const [, href] of html.matchAll(/\bhref="([^"]*)"/g)) expect(href).toMatch(/^#account-[a-z0-9-]+$/);
  expect(html).not.toContain('sandbox-admin');
}

describe('the status page of several accounts in Chromium', () => {
  it('the daemon serves one page with every account: the overview at the top, a section per account', async (ctx) => {
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
      expectSelfContained(await response!.text());
      await expectAccountsOfState(browser.page, 'daemon');
      expect(browser.errors).toEqual([]);
      expect(browser.requests).toEqual([`http://${address}/`]);
      const shot = join(shots, 'status-page-accounts.png');
      await browser.page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(20_000);
    } finally {
      await browser.close();
      daemon.kill('SIGTERM');
      await new Promise((r) => daemon.once('close', r));
    }
  }, 60_000);

  it('report --html writes the same page of every account; with --account, the page of that one', async (ctx) => {
    const all = join(dir, 'all.html');
    const written = await runProcess(process.execPath, [CLI, 'report', '--html', all, '--config', configPath]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe(`status page of 2 accounts, 4 run(s), written to ${all}\n`);
    expectSelfContained(readFileSync(all, 'utf8'));
    const one = join(dir, 'globex.html');
    const globex = await runProcess(process.execPath, [
      CLI,
      'report',
      '--html',
      one,
      '--config',
      configPath,
      '--account',
      'globex',
    ]);
    expect(globex.code, globex.stderr).toBe(0);
    expect(globex.stdout).toBe(`status page of 2 run(s) written to ${one}\n`);
    const browser = await openBrowser(ctx);
    try {
      await browser.page.goto(pathToFileURL(all).href);
      await expectAccountsOfState(browser.page, 'report');
      await browser.page.goto(pathToFileURL(one).href);
      expect(await browser.page.locator('header p strong').textContent()).toBe('globex');
      expect(await browser.page.locator('table.accounts').count()).toBe(0);
      expect(
        await browser.page.locator('table.runs tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.run)),
      ).toEqual(runsOf('globex').map((r) => r.run_id));
      expect(browser.errors).toEqual([]);
      await browser.page.screenshot({ path: join(shots, 'report-globex.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('report --account names an account the config lists (exit 64 otherwise, naming them)', async () => {
    const result = await runProcess(process.execPath, [
      CLI,
      'report',
      '--html',
      join(dir, 'x.html'),
      '--config',
      configPath,
      '--account',
      'initech',
    ]);
    expect(result.code).toBe(64);
    // Off a terminal the logs are JSON: the error is one command.failed line.
    const lines = result.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({
      event: 'command.failed',
      code: 'USAGE',
      exit_code: 64,
      message: expect.stringContaining('no account named "initech" (the config lists acme, globex)'),
    });
  });
});
