import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../support/pty-screen.js';
import { runProcess } from '../sync/cli-run.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { openBrowser } from './browser.js';

/**
 * The status page after a partial run, as a person opens it in Chromium: the run's
 * outcome is `partial`, and the failed stream is named with its reason, in the last
 * run card and in the run's row. The state holds a successful run, then a partial one
 * against a deployment that redirects GET /holidays to another origin.
 */
let env: SyncEnv;
let file: string;

beforeAll(async () => {
  env = await startSyncEnv({ seed: 31, conversations: 40, quirks: 'offsite-redirect' });
  expect((await env.sync({ streams: ['inboxes', 'users'] })).summary.status).toBe('succeeded');
  expect((await env.sync({ streams: ['inboxes', 'holidays', 'users'] })).summary.status).toBe('partial');
  file = join(env.dir, 'status.html');
  const written = await runProcess(process.execPath, [
    CLI,
    'report',
    '--html',
    file,
    '--config',
    env.configFile('c.json'),
  ]);
  expect(written.code, written.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe('the status page of a partial run in Chromium', () => {
  it('calls the last run partial and names holidays with its reason; the run before it stays succeeded', async (ctx) => {
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain('sandbox-admin');
    const browser = await openBrowser(ctx);
    try {
      await browser.page.goto(pathToFileURL(file).href);
      const card = browser.page.locator('[data-card="last-run"]');
      expect(await card.locator('.pill').textContent()).toBe('partial');
      const failed = card.locator('[data-field="failed-streams"]');
      expect(await failed.textContent()).toBe('failed: holidays (API_REDIRECT)');
      expect(await failed.locator('[data-failed="holidays"]').getAttribute('title')).toMatch(
        /^GET \S+\/v1\/holidays was redirected \(302\) to another origin \(\S+\): refused/,
      );
      expect(await failed.isVisible()).toBe(true);
      const rows = browser.page.locator('table.runs tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).locator('.pill').textContent()).toBe('partial');
      expect(await rows.nth(0).locator('[data-field="failed-streams"]').textContent()).toBe(
        'failed: holidays (API_REDIRECT)',
      );
      expect(await rows.nth(1).locator('.pill').textContent()).toBe('succeeded');
      expect(await rows.nth(1).locator('[data-field="failed-streams"]').count()).toBe(0);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
