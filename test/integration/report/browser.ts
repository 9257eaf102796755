import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { TestContext } from 'vitest';
import { npmChromium } from '../../support/npm-chromium.js';
import { needPart, tryPart } from '../../support/real-parts.js';

/**
 * Flags for a headless Chromium on a machine with no network but loopback: without
 * the background-networking ones it keeps trying (and failing) to reach its
 * vendor's services.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  /** Every URL the page asked for. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A fresh headless Chromium (its own new --user-data-dir) driven by playwright-core, with one page
 * open: the npm package's (test/support/npm-chromium.ts). Marks the test as one that needs a
 * browser; one that cannot be unpacked or started fails the test, saying why.
 */
export async function openBrowser(ctx: TestContext): Promise<Browser> {
  const { context, profile } = needPart(ctx, 'chromium', await tryPart(launch));
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  return {
    page,
    errors,
    requests,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function launch(): Promise<{ context: BrowserContext; profile: string }> {
  const browser = npmChromium();
  const profile = mkdtempSync(join(tmpdir(), 'hs-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      env: { ...process.env, ...browser.env },
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    return { context, profile };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`${browser.origin} did not start: ${(error as Error).message}`, { cause: error });
  }
}
