import { backoffDelayMs } from '../../backoff.js';
import { type Clock, systemClock } from '../../clock.js';
import type { Logger } from '../../log.js';

export interface RetryOptions {
  /** Whole-operation attempts (each already retried by the SDK). @default 3 */
  attempts?: number;
  /** First backoff; doubled each attempt, with jitter (src/backoff.ts). @default 500 */
  baseDelayMs?: number;
  /** Cap of any single backoff. @default 30000 */
  maxDelayMs?: number;
  /** Waits between attempts (`sleep`) and their jitter (`random`). @default systemClock */
  clock?: Pick<Clock, 'sleep' | 'random'>;
}

interface AwsErrorShape {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

const FATAL_NAMES = new Set([
  'AccessDenied',
  'NoSuchBucket',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidBucketName',
  'CredentialsProviderError',
]);

/** Client errors (4xx but 408/429) and credential problems do not get better by retrying. */
export function isRetryableS3Error(error: unknown): boolean {
  const e = (error ?? {}) as AwsErrorShape;
  if (e.name && FATAL_NAMES.has(e.name)) return false;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 400 && status < 500) return status === 408 || status === 429;
  return true;
}

/**
 * Retries a whole upload (multipart included) after the SDK's own per-request
 * retries gave up: a multipart upload that failed midway is aborted by
 * lib-storage and started again from the first part.
 */
export async function retryUpload<T>(
  what: string,
  operation: () => Promise<T>,
  logger: Logger,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 3;
  const policy = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 30_000 };
  const clock = options.clock ?? systemClock;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= attempts || !isRetryableS3Error(error)) throw error;
      const wait = backoffDelayMs(attempt, policy, clock.random());
      logger.warn({ err: error, attempt, wait_ms: wait, object: what }, 'upload failed, retrying');
      await clock.sleep(wait);
    }
  }
}
