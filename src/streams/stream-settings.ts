import type { Config } from '../config/schema.js';

/**
 * What the streams are given of the config, built once per run by the sync's
 * composition root (src/sync/stream-settings-of.ts). Each stream that needs
 * settings is built with its own part (`Pick<StreamSettings, …>`): the scan its
 * conversations and rate settings, the reports theirs; the full-refresh lists
 * need none. Every value was validated once, by the config schema.
 */
export interface StreamSettings {
  /** From `source.rate_limit`. */
  rate: {
    /** Requests a stream keeps in flight at once (threads, deletion checks, report days). */
    concurrency: number;
    /** The run's budget: what a first reports backfill is estimated at. */
    requestsPerMinute: number;
  };
  /** `conversations.*`, and which list the scan reads (`source.conversations_endpoint`). */
  conversations: Config['conversations'] & { endpoint: Config['source']['conversations_endpoint'] };
  /** `reports.*`. */
  reports: Config['reports'];
}

export type ScanStreamSettings = Pick<StreamSettings, 'conversations' | 'rate'>;
export type ReportStreamSettings = Pick<StreamSettings, 'reports' | 'rate'>;
