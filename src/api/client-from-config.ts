import type { SourceConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { type ApiClient, buildApiClient } from './create-api-client.js';
import type { RateSpend } from './queue/rate-limit/rate-spend.js';
import type { RequestQueue } from './queue/request-queue.js';

/**
 * The one place that turns `source:` config into a client, so sync, check, plan,
 * apply and the daemon build it alike. Pass `queue` to share the process-wide
 * request queue (docs/rate-limits.md: one budget per process, whatever the job),
 * and `lane` when accounts share it.
 */
export function apiClientFromConfig(
  source: SourceConfig,
  logger: Logger,
  queue?: RequestQueue,
  /** The account this client sends for, in a queue several accounts share (`accounts[].share`). */
  lane?: { name: string; weight: number },
  /** What the last process of this deployment spent of the rate window (its own queue only: a shared one knows). */
  priorSpend?: RateSpend,
): ApiClient {
  // The numbers were checked by the config schema: built without checking them again.
  return buildApiClient({
    baseUrl: source.base_url,
    token: source.token,
    requestsPerMinute: source.rate_limit.requests_per_minute,
    concurrency: source.rate_limit.concurrency,
    rateWindowSeconds: source.rate_limit.window_seconds,
    allowInsecureHttp: source.allow_insecure_http,
    connectTimeoutMs: source.connect_timeout_ms,
    responseTimeoutMs: source.response_timeout_ms,
    logger,
    conversationsEndpoint: source.conversations_endpoint,
    ...(source.local_address === undefined ? {} : { localAddress: source.local_address }),
    ...(queue ? { queue } : {}),
    ...(lane ? { lane } : {}),
    ...(priorSpend ? { priorSpend } : {}),
  });
}
