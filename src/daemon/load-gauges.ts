import { Gauge, type Registry } from 'prom-client';
import { lagSeconds, type TargetStatus } from '../report/warehouse-status.js';

/** Each account's load targets as the status page read them last (status-source.ts). */
export type LoadTargets = () => ReadonlyArray<{ account?: string; targets: readonly TargetStatus[] }>;

/**
 * Per load target (and account), its last load and its lag behind the state's
 * manifests, read when scraped from what the status page read last (each run
 * reads the state again): alert on the lag, not on a job's outcome alone. The
 * `target` label is the target described without secrets (a PostgreSQL URL's
 * password is `***`).
 */
export function registerLoadGauges(registry: Registry, loads: LoadTargets): void {
  const gauge = (name: string, help: string, value: (t: TargetStatus) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['account', 'target'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const { account, targets } of loads()) {
          for (const t of targets) {
            const v = value(t);
            if (v !== undefined) this.set({ ...(account === undefined ? {} : { account }), target: t.target }, v);
          }
        }
      },
    });
  const seconds = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso) / 1000);
  gauge(
    'helpdesk_sync_load_last_success_timestamp_seconds',
    'Unix time at which the last load into the target that succeeded ended.',
    (t) => seconds(t.last?.last_succeeded_at),
  );
  gauge('helpdesk_sync_load_failed', "Whether the target's last load failed (1) or not (0).", (t) =>
    t.last ? (t.last.outcome === 'failed' ? 1 : 0) : undefined,
  );
  gauge(
    'helpdesk_sync_load_lag_manifests',
    'Manifests the state committed that no load into the target has loaded yet.',
    (t) => t.lag.manifests,
  );
  gauge(
    'helpdesk_sync_load_lag_seconds',
    'Seconds from the newest manifest loaded into the target to the newest committed one (0: up to date).',
    (t) => lagSeconds(t.lag),
  );
}
