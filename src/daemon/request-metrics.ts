import { Counter, type Registry } from 'prom-client';
import type { RequestStats } from '../api/index.js';

/**
 * One request queue's counters, and the labels its series carry: none for the
 * one queue of a config without `accounts:` (its series as they always were),
 * `origin` (and `local_address` when one is set) for the queues of several
 * accounts, one per origin and local address.
 */
export interface QueueCounters {
  labels: { origin?: string; local_address?: string };
  stats: RequestStats;
}

/**
 * The request counters, read from the queues when scraped, so they cover every
 * job that shares a queue (the syncs and applies of every account on it) and
 * always equal the sum of the runs' own figures on that queue.
 */
export function registerRequestMetrics(registry: Registry, queues: () => readonly QueueCounters[]): void {
  const labelNames = ['origin', 'local_address', 'status'] as const;
  new Counter({
    name: 'helpdesk_sync_requests_total',
    help: 'HTTP attempts sent to the API, by status ("network" and "timeout" when there was none).',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const q of queues()) {
        for (const [status, count] of Object.entries(q.stats.byStatus)) this.inc({ ...q.labels, status }, count);
      }
    },
  });
  const total = (name: string, help: string, value: (stats: RequestStats) => number) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const q of queues()) this.inc(q.labels, value(q.stats));
      },
    });
  total('helpdesk_sync_rate_limited_total', 'HTTP 429 responses received.', (s) => s.rateLimited);
  total(
    'helpdesk_sync_retries_total',
    'Attempts that repeated an earlier one (after a 429, a 5xx, a reset or a timeout).',
    (s) => s.retries,
  );
  total(
    'helpdesk_sync_rate_budget_wait_seconds_total',
    'Seconds ready requests were held back for rate budget (pacing and 429 pauses).',
    (s) => s.waitedMs / 1000,
  );
}
