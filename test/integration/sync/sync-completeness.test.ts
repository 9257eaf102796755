import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { startSandbox } from '../../../src/sandbox/start.js';
import { formatSummary } from '../../../src/sync/summary/format-summary.js';
import { runCli } from './cli-run.js';
import { conversationIds } from './quirk-harness.js';
import { type SyncEnv, startSyncEnv } from './support.js';

/**
 * The completeness figure against a sandbox that hides one conversation from
 * its listing while meta.total still counts it (quirk `hidden-conversation`):
 * the run reports INCOMPLETE with the numbers and where the hole is, in the
 * summary, its printed line and the manifest; the next run re-reads the hole
 * first; once the listing shows it again (the same data served without the
 * quirk), that re-read writes it and the report clears.
 */

/** A logger whose JSON lines are kept, to read the events of one run in order. */
function events() {
  const chunks: string[] = [];
  const logger = createLogger({ format: 'json', level: 'info', destination: { write: (s: string) => chunks.push(s) } });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines };
}

let env: SyncEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('completeness against a listing that hides a conversation', () => {
  it('INCOMPLETE with the numbers while one is hidden, cleared once the listing shows it again', async () => {
    // More than two pages, so the hidden conversation sits mid-list (a hole, not a capped tail).
    env = await startSyncEnv({ seed: 44, conversations: 300, quirks: 'hidden-conversation' });
    const e = env;
    const total = conversationIds(e).length + e.sandbox.store.conversations.trashed.size;
    expect(total).toBeGreaterThan(200);

    const first = await e.sync();
    // Something the API counts is missing for no known reason: the run is partial (exit 3).
    expect(first.summary.status).toBe('partial');
    // The page short of one was re-read every way the document allows: no request reaches it.
    expect([first.summary.listing_repairs, first.summary.listing_recovered]).toEqual([1, 0]);
    const figure = first.summary.completeness.find((f) => f.stream === 'conversations');
    // Page 2 is short of one while its meta places its items from 101: the hole is somewhere there.
    const hole = { from: 101, to: 200, missing: 1 };
    expect(figure).toEqual({
      stream: 'conversations',
      expected: total,
      live: total - 1,
      explained: [],
      unexplained: 1,
      holes: [hole],
    });
    const warnings = first.summary.warnings.filter((w) => w.code === 'INCOMPLETE').map((w) => w.message);
    expect(warnings).toContain(
      `conversations: the API says ${total} exist, the state holds ${total - 1} after this run; 1 missing for no known reason; ` +
        '1 conversation of the listing, somewhere in its positions 101-200, was served by no page and found by no re-read; ' +
        'the next run re-reads those positions first',
    );
    const line = formatSummary(first.summary)
      .split('\n')
      .find((l) => l.startsWith('  completeness'));
    expect(line).toContain(`conversations ${total - 1}/${total} (1 unexplained)`);
    expect(line).toContain('INCOMPLETE: 2 missing'); // the conversation, and its thread
    expect(formatSummary(first.summary)).toContain(
      'partial: the run committed what it could, but something is missing for no known reason (above)',
    );
    const manifest = JSON.parse(readFileSync(join(e.outDir, first.manifestKey), 'utf8'));
    expect(manifest.summary.completeness).toEqual(first.summary.completeness);

    // Still hidden: the next run re-reads the hole's page before anything else, then lists as before.
    const again = events();
    const second = await e.sync({}, { logger: again.logger });
    expect(second.summary.completeness.find((f) => f.stream === 'conversations')?.holes).toEqual([hole]);
    const listingEvents = again.lines().filter((l) => String(l.event).startsWith('listing.'));
    expect(listingEvents.map((l) => l.event)).toEqual(['listing.holes_reread', 'listing.repair']);
    expect(listingEvents[0]).toMatchObject({ ...hole, pages: 1, listed: 99 });

    // The same data without the fault: the hole's re-read finds the conversation first, the report clears.
    const plain = await startSandbox({ port: 0, seed: 44, conversations: 300, rateLimit: 1_000_000 });
    try {
      const log = events();
      const cleared = await e.sync({ source: { base_url: plain.baseUrl } }, { logger: log.logger });
      expect(log.lines().find((l) => l.event === 'listing.holes_reread')).toMatchObject({ listed: 100 });
      expect(cleared.summary.tables.conversations.rows).toBe(1);
      expect(cleared.summary.status).toBe('succeeded');
      expect(cleared.summary.warnings.filter((w) => w.code === 'INCOMPLETE')).toEqual([]);
      expect(cleared.summary.completeness.filter((f) => f.unexplained !== 0)).toEqual([]);
      expect(formatSummary(cleared.summary)).toContain('nothing missing');
      // Nothing is left to re-read first: the run after lists as usual.
      const after = events();
      await e.sync({ source: { base_url: plain.baseUrl } }, { logger: after.logger });
      expect(after.lines().filter((l) => l.event === 'listing.holes_reread')).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('the sync command exits 3 (partial) while a hole stays unexplained, and 0 once it is filled', async () => {
    const sandbox = await startSandbox({
      port: 0,
      seed: 44,
      conversations: 300,
      rateLimit: 1_000_000,
      quirks: 'hidden-conversation',
    });
    const dir = mkdtempSync(join(tmpdir(), 'hs-completeness-cli-'));
    try {
      const config = (baseUrl: string) => {
        const path = join(dir, 'config.json');
        writeFileSync(
          path,
          JSON.stringify({
            source: { base_url: baseUrl, token: '${HELPDESK_TOKEN}', rate_limit: { requests_per_minute: 100_000 } },
            reports: { lookback_days: 1 },
            destination: { type: 'local', path: join(dir, 'out') },
            state: { path: join(dir, 'state.sqlite') },
          }),
        );
        return path;
      };
      const sync = (baseUrl: string) =>
        runCli(['sync', '--config', config(baseUrl)], { env: { HELPDESK_TOKEN: 'sandbox-admin' } });
      const hidden = await sync(sandbox.baseUrl);
      expect(hidden.code).toBe(3);
      expect(hidden.stdout).toContain('somewhere in its positions 101-200');
      const plain = await startSandbox({ port: 0, seed: 44, conversations: 300, rateLimit: 1_000_000 });
      try {
        const filled = await sync(plain.baseUrl);
        expect(filled.code).toBe(0);
        expect(filled.stdout).toContain('nothing missing');
      } finally {
        await plain.close();
      }
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
