/**
 * The baseline the pacing benchmark compares against: what reactive connectors
 * do. Up to `concurrency` requests in flight, no pacing at all; a request that
 * meets a 429 sleeps the Retry-After it was given (1 s when none; only that
 * request, holding its slot, as a worker would) and is sent again. It stands in
 * for helpdesk-sync's RequestQueue, so the very same sync, HTTP stack and
 * requests run through it: the comparison is of pacing alone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { RequestStats } from '../../../src/api/endpoints/types.js';
import { errorFromResponse, headerValue, type RawResponse } from '../../../src/api/errors/error-from-response.js';
import { parseRetryAfter } from '../../../src/api/queue/rate-limit/retry-math.js';
import { type QueuedRequest, RequestQueue } from '../../../src/api/queue/request-queue.js';

export class NaivePeerQueue extends RequestQueue {
  private readonly slots: PQueue;
  private readonly tally = { requests: 0, retries: 0, rateLimited: 0, byStatus: {} as Record<string, number> };

  constructor(concurrency: number) {
    super({ concurrency });
    this.slots = new PQueue({ concurrency });
  }

  override request(req: QueuedRequest): Promise<RawResponse> {
    return this.slots.add(async () => {
      for (let attempt = 0; ; attempt++) {
        this.tally.requests += 1;
        const response = await req.send(req.signal ?? new AbortController().signal);
        const status = String(response.status);
        this.tally.byStatus[status] = (this.tally.byStatus[status] ?? 0) + 1;
        if (response.status === 429 && attempt < 100) {
          this.tally.rateLimited += 1;
          this.tally.retries += 1;
          const wait = parseRetryAfter(headerValue(response.headers, 'retry-after'), Date.now()) ?? 1000;
          await sleep(wait);
          continue;
        }
        if (response.status >= 300) throw errorFromResponse(response, req);
        return response;
      }
    });
  }

  override stats(): RequestStats {
    return { ...this.tally, byStatus: { ...this.tally.byStatus }, waitedMs: 0, rateLimitPausedMs: 0 };
  }

  override drain(): Promise<void> {
    return this.slots.onIdle();
  }

  override close(): void {
    this.slots.clear();
    super.close();
  }
}
