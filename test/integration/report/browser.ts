import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install -y chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.HELPDESK_SYNC_CHROMIUM ?? '/usr/bin/chromium';

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

/** A fresh headless Chromium (its own new --user-data-dir) driven by playwright-core, with one page open. */
export async function openBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); .ci/run does`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'hs-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
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
