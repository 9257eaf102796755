import { beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../../support/pty-screen.js';
import { sandboxWithConfig } from './support.js';

const setUp = sandboxWithConfig();

/**
 * A sync that meets a 429 on its very first request: another client on the IP (here the test,
 * from the same address) has just spent the sandbox's window of 30 requests per 6 s. The pause
 * comes before any stream starts, while the run only reads who the token belongs to.
 */
async function syncAfterSpentWindow() {
  const { sandbox, config } = await setUp(
    { seed: 5, conversations: 5, rateLimit: 30, rateWindowSeconds: 6 },
    (baseUrl) => ({
      source: { base_url: baseUrl, token: '${HELPDESK_TOKEN}', rate_limit: { requests_per_minute: 300 } },
      reports: { lookback_days: 0, start_date: new Date().toISOString().slice(0, 10) },
    }),
  );
  for (let i = 0; i < 30; i++) {
    const response = await fetch(`${sandbox.baseUrl}/me`, { headers: { authorization: 'Bearer sandbox-admin' } });
    await response.arrayBuffer();
  }
  return runInPty(['sync', '--config', config], {
    cols: 100,
    frames: true,
    env: { HELPDESK_TOKEN: 'sandbox-admin' },
  });
}

describe('sync in a terminal, paused before its first stream', () => {
  let run: Awaited<ReturnType<typeof syncAfterSpentWindow>>;
  beforeAll(async () => {
    run = await syncAfterSpentWindow();
  });

  it('counts the pause down on screen while every stream is still pending', () => {
    const shown = run.screen.join('\n');
    expect(run.exitCode, shown).toBe(0);
    // Frames drawn while every stream was still pending (no stream has rows or requests yet).
    const beforeStreams = run.frames.filter(
      (frame) => /^ {2}stream +rows +requests/m.test(frame) && !/^ {2}\S+ +\d+ +\d+ /m.test(frame),
    );
    const countdown = new Set(
      beforeStreams.flatMap((frame) => [...frame.matchAll(/paused by a 429: resumes in (\d+)s/g)].map((m) => m[1])),
    );
    // At least two different values: the screen counted down, not just said once that it waits.
    expect(countdown.size, run.frames.at(-1)).toBeGreaterThanOrEqual(2);
  });

  it('says a duration that holds the pause', () => {
    const shown = run.screen.join('\n');
    const pause = Number(/pausing every request for (\d+)/.exec(shown)?.[1]);
    expect(pause, shown).toBeGreaterThan(1);
    const seconds = Number(/^sync \S+ succeeded in (\d+)(?:\.\d+)?s/m.exec(shown)?.[1]);
    expect(seconds, shown).toBeGreaterThanOrEqual(pause - 1);
  });
});
