import type { RawResponse } from '../errors/error-from-response.js';
import type { ApiError } from '../errors/errors.js';

/** One HTTP request handed to the queue; `send` makes one attempt. */
export interface QueuedRequest {
  method: string;
  /** Token-free URL, for errors and logs. */
  url: string;
  /** GET and POST /search: 5xx, resets and timeouts may be retried (docs/rate-limits.md). */
  idempotent: boolean;
  signal?: AbortSignal;
  /** Values redacted from every error (the token). */
  secrets?: readonly string[];
  /**
   * An error for a 2xx whose body is unusable (cut short, empty, HTML), or
   * undefined when it is fine. A retriable error is retried like a 5xx.
   */
  checkBody?(response: RawResponse): ApiError | undefined;
  /** A redirect (301, 302, 303, 307, 308) is handed back as it is, for the caller to follow (./follow-redirects.ts). */
  passRedirects?: boolean;
  /** The lane (an account) sharing the queue that sends it: slots go to lanes fairly (./fair-lanes.ts). @default '' */
  lane?: string;
  /** Sends once; resolves with any HTTP status, throws ApiError for network failures. */
  send(signal: AbortSignal): Promise<RawResponse>;
}

/**
 * What one turn in a concurrency slot ends with: a response that is not a 429
 * (any status), or a network failure. 429s never leave the slot's turn
 * (src/api/queue/rate-limit/paced-sender.ts) unless they exhaust its patience.
 */
export type AttemptOutcome = { response: RawResponse; error?: undefined } | { error: ApiError; response?: undefined };

/** The queue's counters, written by the 429 handling and the failure retries alike, read by stats(). */
export interface RequestCounts {
  requests: number;
  retries: number;
  rateLimited: number;
  /** Of those, 429s met by probes while backing off from a 429 that said nothing. */
  rateLimitProbes: number;
  /** Of those, 429s met while the window's length was not known yet (neither configured nor learned). */
  rateLimitLearning: number;
  /** When the 429s going on now began (the first of those in a row); undefined once an answer is not a 429. */
  limitedSince?: number;
  /** HTTP status, or `network` / `timeout`, → attempts. */
  byStatus: Record<string, number>;
}
