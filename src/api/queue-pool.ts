import type { SourceConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { RequestQueue } from './queue/request-queue.js';

/**
 * One request queue per origin and local address, for the accounts of one
 * process (docs/operations.md, "Several accounts"). The API's budget is per
 * client IP (Limits: `api.global`, "keyed by client IP, not by token"), so every
 * account that reaches one origin from one address spends one budget and learns
 * one window: they share a queue, each in a lane of its own. Accounts of another
 * origin, or sent from another local address, get a queue of their own.
 */
export class QueuePool {
  readonly #queues = new Map<string, RequestQueue>();

  constructor(private readonly logger: Logger) {}

  /** The queue of `source`'s origin and local address, made on first use with its rate settings. */
  queueFor(source: Pick<SourceConfig, 'base_url' | 'rate_limit' | 'local_address'>): RequestQueue {
    const key = `${new URL(source.base_url).origin} ${source.local_address ?? ''}`;
    let queue = this.#queues.get(key);
    if (!queue) {
      queue = new RequestQueue({
        requestsPerMinute: source.rate_limit.requests_per_minute,
        concurrency: source.rate_limit.concurrency,
        ...(source.rate_limit.window_seconds === undefined
          ? {}
          : { rateWindowSeconds: source.rate_limit.window_seconds }),
        logger: this.logger,
      });
      this.#queues.set(key, queue);
    }
    return queue;
  }

  /** How many queues the accounts need (one per origin and address). */
  get size(): number {
    return this.#queues.size;
  }

  close(): void {
    for (const queue of this.#queues.values()) queue.close();
    this.#queues.clear();
  }
}
