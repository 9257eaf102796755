import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../src/backoff.js';
import { silentLogger } from '../../../src/log.js';
import { isRetryableS3Error, retryUpload } from '../../../src/output/sinks/retry-upload.js';

describe('backoffDelayMs', () => {
  const policy = { baseDelayMs: 500, maxDelayMs: 8_000 };

  it('doubles per retry, with half of each step random', () => {
    expect([1, 2, 3, 4].map((r) => backoffDelayMs(r, policy, 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((r) => backoffDelayMs(r, policy, 0.999999))).toEqual([500, 1000, 2000, 4000]);
  });

  it('is capped', () => {
    expect(backoffDelayMs(10, policy, 0)).toBe(4_000);
    expect(backoffDelayMs(30, policy, 0.999999)).toBe(8_000);
  });
});

describe('retryUpload', () => {
  const transient = Object.assign(new Error('socket hang up'), { $metadata: { httpStatusCode: 503 } });
  /** A clock whose sleeps end at once. */
  const noWait = { random: () => 0.5, sleep: async () => undefined };

  it('waits the shared backoff between whole-upload attempts, then gives up', async () => {
    const waits: number[] = [];
    let calls = 0;
    const upload = retryUpload(
      'runs/x.jsonl.gz',
      async () => {
        calls++;
        throw transient;
      },
      silentLogger(),
      {
        attempts: 3,
        baseDelayMs: 500,
        clock: {
          random: () => 0,
          sleep: async (ms: number) => {
            waits.push(ms);
          },
        },
      },
    );
    await expect(upload).rejects.toBe(transient);
    expect(calls).toBe(3);
    expect(waits).toEqual([250, 500]);
  });

  it('returns the first success and does not retry what retrying cannot fix', async () => {
    let calls = 0;
    const ok = await retryUpload(
      'a',
      async () => {
        calls++;
        if (calls < 2) throw transient;
        return 'done';
      },
      silentLogger(),
      { clock: noWait },
    );
    expect([ok, calls]).toEqual(['done', 2]);

    const denied = Object.assign(new Error('denied'), { name: 'AccessDenied' });
    let deniedCalls = 0;
    await expect(
      retryUpload(
        'b',
        async () => {
          deniedCalls++;
          throw denied;
        },
        silentLogger(),
        { clock: noWait },
      ),
    ).rejects.toBe(denied);
    expect(deniedCalls).toBe(1);
    expect(isRetryableS3Error(Object.assign(new Error('slow down'), { $metadata: { httpStatusCode: 429 } }))).toBe(
      true,
    );
  });
});
