import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../log.js';

export interface RetryOptions {
  /** Whole-operation attempts (each already retried by the SDK). @default 3 */
  attempts?: number;
  /** First backoff; doubled each attempt, with jitter. @default 500 */
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<unknown>;
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
  const base = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? delay;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= attempts || !isRetryableS3Error(error)) throw error;
      const wait = Math.round(base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
      logger.warn({ err: error, attempt, wait_ms: wait, object: what }, 'upload failed, retrying');
      await sleep(wait);
    }
  }
}
