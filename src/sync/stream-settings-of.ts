import type { Config } from '../config/schema.js';
import type { StreamSettings } from '../streams/stream-settings.js';

/** What the streams get of the config, taken once per run (sync and check): see StreamSettings. */
export function streamSettingsOf(config: Config): StreamSettings {
  return {
    rate: {
      concurrency: config.source.rate_limit.concurrency,
      requestsPerMinute: config.source.rate_limit.requests_per_minute,
    },
    conversations: { ...config.conversations, endpoint: config.source.conversations_endpoint },
    reports: config.reports,
  };
}
