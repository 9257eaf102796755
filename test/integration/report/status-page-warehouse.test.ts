import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { formatDuration } from '../../../src/format-duration.js';
import { silentLogger } from '../../../src/log.js';
import type { Manifest } from '../../../src/output/manifest.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { syncJob } from '../../../src/sync/sync-job.js';
import { CLI } from '../../support/pty-screen.js';
import { sharedPostgres } from '../../support/shared-postgres.js';
import { runCli } from '../sync/cli-run.js';
import { openBrowser } from './browser.js';

/**
 * The warehouse side of the status page and the daemon's metrics, after real
 * syncs against the sandbox and real loads by the CLI into a DuckDB file and a
 * PostgreSQL server (its URL carrying a password, which must appear nowhere).
 * The page is opened in headless Chromium; the metrics are read as Prometheus
 * text from the daemon's listener.
 */
const postgres = sharedPostgres();
const PASSWORD = 'pw-n0t-f0r-pages';
let sandbox: RunningSandbox;
let dir: string;
let configPath: string;
let statePath: string;
let duckdb: string;
let config: ReturnType<typeof parseConfig>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 5, conversations: 30 });
  dir = mkdtempSync(join(tmpdir(), 'hs-status-wh-'));
  statePath = join(dir, 'state', 'state.sqlite');
  duckdb = join(dir, 'warehouse.duckdb');
  const raw = {
    source: { base_url: sandbox.baseUrl, token: 'sandbox-admin' },
    destination: { type: 'local', path: join(dir, 'out') },
    state: { path: statePath },
    schedule: { sync: '0 0 1 1 *' },
    metrics: { listen: '127.0.0.1:0' },
    load: { into: `duckdb:${duckdb}` },
  };
  configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(raw));
  config = parseConfig(raw, 'test', {});
  await syncJob(config, { logger: silentLogger() });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The manifests the syncs wrote, oldest first, with the time the state confirmed each. */
function manifests(): Array<Manifest & { confirmed: string }> {
  const db = new Database(statePath, { readonly: true });
  const confirmed = new Map(
    db
      .prepare<[], { run_id: string; finished_at: string }>(
        "SELECT run_id, finished_at FROM runs WHERE manifest_state = 'written'",
      )
      .all()
      .map((r) => [r.run_id, r.finished_at]),
  );
  db.close();
  const folder = join(dir, 'out', '_manifests');
  return readdirSync(folder)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as Manifest)
    .map((m) => ({ ...m, confirmed: confirmed.get(m.run_id) as string }));
}

const rowsOf = (m: Manifest) => Object.values(m.tables).reduce((a, b) => a + b, 0);
const row = (target: string) => `table.warehouse tr[data-target="${target}"]`;
const cell = (page: Page, target: string, name: string) =>
  page
    .locator(`${row(target)} [data-field="${name}"]`)
    .first()
    .textContent();

/** Writes the page with `report --html` and opens it. */
async function reportPage(page: Page): Promise<string> {
  const file = join(dir, 'status.html');
  const result = await runCli(['report', '--html', file, '--config', configPath]);
  expect(result.code, result.stderr).toBe(0);
  await page.goto(pathToFileURL(file).href);
  return readFileSync(file, 'utf8');
}

/** `name{labels} value` lines of a Prometheus text exposition, by name and labels. */
function parseMetrics(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
      );
      return { name: m[1] as string, labels, value: Number(m[3]) };
    });
}

describe('the warehouse on the status page and in the metrics', () => {
  it('never loaded, then loaded into DuckDB and PostgreSQL, then behind by the manifest of a second sync', async (ctx) => {
    const pg = postgres.use(ctx);
    const browser = await openBrowser(ctx);
    const duckTarget = `duckdb:${duckdb}`;
    try {
      // Before any load: the configured target, never loaded, the one manifest behind, and how to load.
      await reportPage(browser.page);
      expect(await cell(browser.page, duckTarget, 'outcome')).toBe('never loaded');
      expect(await cell(browser.page, duckTarget, 'lag')).toBe('1 manifest behind');
      expect(await browser.page.locator('[data-field="load-how"]').textContent()).toContain('helpdesk-sync load');

      const withPassword = pg.url.replace('postgres://postgres@', `postgres://postgres:${PASSWORD}@`);
      const pgTarget = withPassword.replace(PASSWORD, '***');
      for (const args of [[], ['--into', withPassword]]) {
        const load = await runCli(['load', '--config', configPath, ...args]);
        expect(load.code, load.stderr).toBe(0);
      }
      const [first] = manifests();
      await syncJob(config, { logger: silentLogger() });
      const [, second] = manifests();
      expect(second).toBeDefined();

      // The daemon reads the state when it starts: both targets, each one manifest behind.
      const daemon = spawn(process.execPath, [CLI, 'daemon', '--config', configPath], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      daemon.stderr.on('data', (c) => {
        stderr += c;
      });
      let html: string;
      let metrics: string;
      try {
        let address: string | undefined;
        for (let i = 0; i < 300 && !address; i++) {
          address = /"event":"daemon\.metrics_listening","address":"([^"]+)"/.exec(stderr)?.[1];
          if (!address) await new Promise((r) => setTimeout(r, 100));
        }
        expect(address, stderr).toBeDefined();
        const response = await browser.page.goto(`http://${address}/`);
        expect(response?.status()).toBe(200);
        html = await response!.text();
        metrics = await (await fetch(`http://${address}/metrics`)).text();
      } finally {
        daemon.kill('SIGTERM');
        await new Promise((r) => daemon.once('close', r));
      }
      const behind = `1 manifest, ${formatDuration(Date.parse(second!.confirmed) - Date.parse(first!.confirmed))} behind`;
      for (const target of [duckTarget, pgTarget]) {
        expect(await cell(browser.page, target, 'outcome'), target).toBe('succeeded');
        expect(await cell(browser.page, target, 'manifests'), target).toBe('1');
        expect(Number((await cell(browser.page, target, 'rows'))?.replace(/\D/g, '')), target).toBe(rowsOf(first!));
        expect(await cell(browser.page, target, 'lag'), target).toBe(`${behind} newest loaded ${first!.run_id}`);
        expect(await cell(browser.page, target, 'when'), target).toMatch(/^\S+ ago 20\d\d-\d\d-\d\d \d\d:\d\d UTC$/);
      }
      expect(browser.errors).toEqual([]);

      const samples = parseMetrics(metrics);
      const sample = (name: string, target: string) =>
        samples.find((s) => s.name === name && s.labels.target === target)?.value;
      for (const target of [duckTarget, pgTarget]) {
        expect(sample('helpdesk_sync_load_lag_manifests', target), target).toBe(1);
        expect(sample('helpdesk_sync_load_lag_seconds', target), target).toBe(
          (Date.parse(second!.confirmed) - Date.parse(first!.confirmed)) / 1000,
        );
        expect(sample('helpdesk_sync_load_failed', target), target).toBe(0);
        const success = sample('helpdesk_sync_load_last_success_timestamp_seconds', target) ?? 0;
        expect(success * 1000, target).toBeGreaterThan(Date.parse(first!.confirmed));
      }

      // No password on the page, in the metrics, in the state or beside it.
      const records = readFileSync(`${statePath}.loads.json`, 'utf8');
      for (const text of [html, metrics, records, readFileSync(statePath).toString('latin1')]) {
        expect(text).not.toContain(PASSWORD);
      }
      expect(Object.keys(JSON.parse(records)).sort()).toEqual([duckTarget, pgTarget].sort());

      // A load into DuckDB catches up; PostgreSQL stays behind; a load that fails says its code.
      const again = await runCli(['load', '--config', configPath]);
      expect(again.code, again.stderr).toBe(0);
      const refused = await runCli([
        'load',
        '--config',
        configPath,
        '--into',
        withPassword.replace(/\/[^/]*$/, '/no_such_db'),
      ]);
      expect(refused.code).not.toBe(0);
      const page = await reportPage(browser.page);
      expect(page).not.toContain(PASSWORD);
      expect(await cell(browser.page, duckTarget, 'lag')).toBe(`up to date newest loaded ${second!.run_id}`);
      expect(await cell(browser.page, pgTarget, 'lag')).toBe(`${behind} newest loaded ${first!.run_id}`);
      const failedTarget = pgTarget.replace(/\/[^/]*$/, '/no_such_db');
      expect(await cell(browser.page, failedTarget, 'outcome')).toMatch(/^failed[A-Z_]+$/);
      expect(await cell(browser.page, failedTarget, 'lag')).toBe('2 manifests behind');
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
