import { describe, expect, it } from 'vitest';
import { runInPty } from '../../support/pty-screen.js';
import { sandboxWithConfig } from './support.js';

const setUp = sandboxWithConfig();

/**
 * A first sync as a new user runs it: the sandbox allows 15 requests per 3 s
 * window, the config asks for far more and leaves the window to be learned, so
 * the run meets one 429 (the probe that finds where the window ends, a pause of
 * up to 3 s) and then waits for each window's end.
 */
async function syncAt(cols: number) {
  const { config } = await setUp({ seed: 5, conversations: 25, rateLimit: 15, rateWindowSeconds: 3 }, (baseUrl) => ({
    source: { base_url: baseUrl, token: '${HELPDESK_TOKEN}', rate_limit: { requests_per_minute: 600 } },
    reports: { lookback_days: 0, start_date: new Date().toISOString().slice(0, 10) },
  }));
  return runInPty(['sync', '--config', config], { cols, env: { HELPDESK_TOKEN: 'sandbox-admin' } });
}

describe.each([80, 200])('sync in a %i-column terminal, with a 429 pause', (cols) => {
  it('keeps the 429 warning on screen above the block, leaves no fragment of the block, prints the summary once at the end', async () => {
    const run = await syncAt(cols);
    const screen = run.screen;
    const shown = screen.join('\n');
    expect(run.exitCode, shown).toBe(0);
    // The warning, in its short human form, still visible when the run has ended.
    const warnings = screen.flatMap((line, i) =>
      /^warning: rate limited \(429\): pausing every request for \d/.test(line) ? [i] : [],
    );
    expect(warnings.length, shown).toBeGreaterThanOrEqual(1);
    // The summary once, and last: nothing but its own lines after its first line.
    const summaries = screen.flatMap((line, i) => (/^sync \S+ succeeded in /.test(line) ? [i] : []));
    expect(summaries, shown).toHaveLength(1);
    const start = summaries[0] as number;
    expect(Math.max(...warnings)).toBeLessThan(start);
    expect(
      screen.slice(start + 1).every((line) => line.startsWith('  ')),
      shown,
    ).toBe(true);
    expect(screen.at(-1), shown).toMatch(/^ {2}(completeness|conversations|requests|warning)/);
    // No fragment of a progress block: neither its column header, legend, wait line nor a stream row.
    for (const fragment of [
      /^ {2}stream +rows +requests/,
      /^ {2}rate: its share of the/,
      /^ {2}time left: its requests left/,
      /^ {2}(paused by a 429|waiting for the rate window)/,
      /^sync \S+ {2}\d/,
    ]) {
      expect(
        screen.filter((line) => fragment.test(line)),
        `${fragment}\n${shown}`,
      ).toEqual([]);
    }
    // The structured events stay out of a person's terminal (no JSON dump after the summary).
    expect(screen.filter((line) => line.trimStart().startsWith('{') || line.includes('"event"'))).toEqual([]);
    // The block was drawn while the run went on, and said when it waited.
    expect(run.raw).toContain('time left');
    expect(run.raw).toMatch(/paused by a 429|waiting for the rate window/);
  });
});
