import { describe, expect, it } from 'vitest';
import { runInPty } from '../../support/pty-screen.js';
import { sandboxWithConfig } from './support.js';

const setUp = sandboxWithConfig();

/**
 * A sync of two accounts in an 80-column terminal, as a person runs it: one sandbox
 * reached as acme (`127.0.0.1`) and as globex (`localhost`), whose token the sandbox
 * refuses. The sandbox allows 40 requests per 2 s window to the machine, so acme's
 * run takes a few windows and the live block is drawn while it goes.
 */
describe('sync of two accounts in an 80-column terminal', () => {
  it('ends with each account under its name, its outcome, and the accounts line; no fragment of the live block', async () => {
    const { config } = await setUp({ seed: 7, conversations: 25, rateLimit: 40, rateWindowSeconds: 2 }, (baseUrl) => {
      const port = new URL(baseUrl).port;
      return {
        source: { rate_limit: { requests_per_minute: 1200 } },
        accounts: [
          { name: 'acme', base_url: `http://127.0.0.1:${port}/v1`, token: 'sandbox-admin' },
          { name: 'globex', base_url: `http://localhost:${port}/v1`, token: '${GLOBEX_TOKEN}' },
        ],
        reports: { lookback_days: 0, start_date: new Date().toISOString().slice(0, 10) },
      };
    });
    const run = await runInPty(['sync', '--config', config], {
      cols: 80,
      env: { GLOBEX_TOKEN: 'not-a-sandbox-token' },
    });
    const { screen, rows } = run;
    const shown = screen.join('\n');
    // One account committed, the other failed: partial.
    expect(run.exitCode, shown).toBe(3);
    const at = (pattern: RegExp) => screen.findIndex((line) => pattern.test(line));
    const acme = at(/^account acme$/);
    const acmeSummary = at(/^ {2}sync \S+ succeeded in /);
    const globex = at(/^account globex failed \(API_UNAUTHORIZED\)$/);
    const accounts = at(/^accounts: acme succeeded, globex failed \(API_UNAUTHORIZED\)$/);
    const partial = at(/^partial: some accounts failed or ended partial \(above\); the others committed$/);
    expect(
      [acme, acmeSummary, globex, accounts, partial].every((i) => i >= 0),
      shown,
    ).toBe(true);
    expect(acme < acmeSummary && acmeSummary < globex && globex < accounts && accounts < partial, shown).toBe(true);
    // The failed account says why, and that the others ran; a blank line sets each block apart.
    expect(screen[globex + 1], shown).toMatch(/^ {2}GET http:\/\/localhost:\d+\/v1\/me failed with status 401/);
    expect(screen.slice(globex).join('\n')).toContain('  the other accounts ran; the next run retries this one');
    expect(screen[globex - 1], shown).toBe('');
    expect(screen[accounts - 1], shown).toBe('');
    expect(partial).toBe(screen.length - 1);
    // The summary's own lines each fit one row of the terminal, unwrapped.
    for (const line of [screen[acme], screen[globex], screen[accounts], screen[partial]]) {
      expect(rows, shown).toContain(line);
    }
    // The live block was drawn while the run went on, and left no fragment behind.
    expect(run.raw).toContain('sync of 2 accounts');
    for (const fragment of [
      /^sync of 2 accounts/,
      /^ {2}account +rows +requests +streams +now/,
      /^ {2}(acme|globex) +(\d+|-) /,
    ]) {
      expect(
        screen.filter((line) => fragment.test(line)),
        `${fragment}\n${shown}`,
      ).toEqual([]);
    }
    expect(shown).not.toContain('not-a-sandbox-token');
  });
});
