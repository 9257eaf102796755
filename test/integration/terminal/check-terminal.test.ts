import { describe, expect, it } from 'vitest';
import { runInPty } from '../../support/pty-screen.js';
import { sandboxWithConfig } from './support.js';

const setUp = sandboxWithConfig();

/** `check` right after something spent the API's window (20 requests per 10 s): its requests wait for the next, several seconds even on a slow machine. */
async function checkAt(cols: number) {
  const { sandbox, config } = await setUp(
    { seed: 2, conversations: 10, rateLimit: 20, rateWindowSeconds: 10 },
    (baseUrl) => ({
      source: { base_url: baseUrl, token: '${HELPDESK_TOKEN}' },
    }),
  );
  for (let i = 0; i < 20; i++) {
    await fetch(`${sandbox.baseUrl}/me`, { headers: { authorization: 'Bearer sandbox-admin' } });
  }
  return runInPty(['check', '--config', config], { cols, env: { HELPDESK_TOKEN: 'sandbox-admin' } });
}

describe.each([80, 200])('check in a %i-column terminal, after the window was spent', (cols) => {
  it('prints each result once; the wait is drawn in place and gone at the end', async () => {
    const run = await checkAt(cols);
    const shown = run.screen.join('\n');
    expect(run.exitCode, shown).toBe(0);
    expect(run.screen[0]).toMatch(/^checking \S+config\.json: the API at http/);
    const results = run.screen.filter((line) => /^(ok|warn|FAIL) {2}/.test(line));
    expect(results.length, shown).toBeGreaterThanOrEqual(5);
    expect(new Set(results).size, shown).toBe(results.length);
    for (const name of ['config', 'api', 'destination', 'state']) {
      expect(
        results.filter((line) => line.includes(` ${name}: `)),
        `${name}\n${shown}`,
      ).toHaveLength(1);
    }
    // Only results, log lines (the 429 met in the spent window) and the first line: no wait line left.
    expect(
      run.screen.filter((line) => line.includes("waiting for the API's rate limit")),
      shown,
    ).toEqual([]);
    expect(
      run.screen.slice(1).every((line) => /^(ok|warn|FAIL) {2}|^warning: /.test(line)),
      shown,
    ).toBe(true);
    expect(run.raw).toContain("waiting for the API's rate limit");
  });
});
