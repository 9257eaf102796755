import type { Clock } from '../../../src/clock.js';
import { type Config, configSchema, type StreamName } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/log.js';
import { memoizeReads } from '../../../src/streams/memoize-reads.js';
import type { StateReader } from '../../../src/streams/types.js';
import { runSync, type SyncDeps, type SyncSummary } from '../../../src/sync/run-sync.js';
import { streamSettingsOf } from '../../../src/sync/stream-settings-of.js';
import { FakeClock } from '../api/fake-clock.js';
import type { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeOutput, type FakeStore } from './fake-output.js';

export function testConfig(extra: Record<string, unknown> = {}): Config {
  return configSchema.parse({
    source: { base_url: 'http://127.0.0.1:1/v1', token: 'test-token-123', rate_limit: { concurrency: 4 } },
    reports: { start_date: '2026-03-01', lookback_days: 2 },
    ...extra,
  });
}

export interface SyncCall {
  streams?: StreamName[];
  fullRefresh?: StreamName[] | true;
  signal?: AbortSignal;
  /** @default a fake clock standing at 2026-03-10T12:00:00Z */
  clock?: Pick<Clock, 'now'>;
  config?: Config;
  checkpointEvery?: SyncDeps['checkpointEvery'];
  onProgress?: SyncDeps['onProgress'];
  /** The state reader of the run. @default store.reader() */
  state?: StateReader;
  /** Called with the output before the run starts (to install hooks). */
  prepare?: (output: FakeOutput) => void;
}

let runs = 0;

/** One sync run against the fakes; the run's rows are committed to `store` like a finished run's. */
export async function syncOnce(
  api: FakeHelpdesk,
  store: FakeStore,
  call: SyncCall = {},
): Promise<{ summary: SyncSummary; output: FakeOutput; requestsBefore: number }> {
  runs += 1;
  const output = new FakeOutput(store, `run-${runs}`);
  call.prepare?.(output);
  const requestsBefore = api.requests.length;
  const config = call.config ?? testConfig();
  api.conversationsEndpoint = config.source.conversations_endpoint;
  const summary = await runSync(
    {
      // The run's api, as the sync job builds it: a read without a query is sent once.
      api: memoizeReads(api),
      requestStats: () => api.stats(),
      output,
      state: call.state ?? store.reader(),
      settings: streamSettingsOf(config),
      configuredStreams: config.streams,
      logger: silentLogger(),
      clock: call.clock ?? new FakeClock(Date.parse('2026-03-10T12:00:00Z')),
      signal: call.signal,
      onProgress: call.onProgress,
      checkpointEvery: call.checkpointEvery,
    },
    { streams: call.streams, fullRefresh: call.fullRefresh },
  );
  await output.finish();
  return { summary, output, requestsBefore };
}
