import { apiClientFromConfig } from '../api/index.js';
import { STREAM_NAMES, streamDefinition } from '../catalog/catalog.js';
import type { StreamDefinition } from '../catalog/stream-definition.js';
import { type Clock, isoNow, systemClock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import { SinkError } from '../errors.js';
import type { Logger } from '../log.js';
import { compilePrivacyPolicy, formatPrivacy } from '../output/privacy/privacy-policy.js';
import { newRunId } from '../output/run-id.js';
import { createSink } from '../output/sinks/create-sink.js';
import { scrubSecrets } from '../redact.js';
import { verifyIntegrity } from '../state/explain-state-error.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { isForbidden } from '../streams/api-error-status.js';
import { listInboxIds } from '../streams/inbox-ids.js';
import { buildStreams, streamFor } from '../streams/registry.js';
import { forbiddenSkip, isSkippedOn403 } from '../streams/skip-when-forbidden.js';
import { probeStream } from '../streams/stream-probe.js';
import type { ProbeContext, ProbeResult } from '../streams/types.js';
import { streamSettingsOf } from './stream-settings-of.js';

export interface CheckResult {
  name: string;
  /** `warn`: a sync runs, but not as the config may intend (a stream it will skip, hours of reports). */
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface CheckJobOptions {
  /** @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** Each result as soon as it is known, so a slow check shows where it is. */
  onResult?: (result: CheckResult) => void;
  /**
   * Called every `waitNoticeMs` while requests wait for rate budget (an earlier
   * run may have spent this window's), with the milliseconds waited so far.
   */
  onWaiting?: (waitedMs: number) => void;
  /** @default 2000 */
  waitNoticeMs?: number;
  /** The privacy policy's key, when it hashes a column (HELPDESK_HASH_KEY). */
  hashKey?: string;
}

/** A stream's probe: its detail, or a warning that sync would go on without it. */
type Probe = () => Promise<ProbeResult>;

/** `warnOn403`: a stream a sync skips on a 403 (docs/streams.md), whose check warns the same way. */
async function attempt(name: string, fn: Probe, warnOn403?: StreamDefinition): Promise<CheckResult> {
  try {
    const detail = await fn();
    return typeof detail === 'string' ? { name, status: 'ok', detail } : { name, status: 'warn', detail: detail.warn };
  } catch (error) {
    if (warnOn403 && isForbidden(error)) {
      return { name, status: 'warn', detail: forbiddenSkip(warnOn403, error).message };
    }
    return { name, status: 'fail', detail: scrubSecrets(error instanceof Error ? error.message : String(error)) };
  }
}

/**
 * `helpdesk-sync check`: the config is already valid when this runs. Reaches the
 * API (/me), probes each configured stream, writes and deletes a probe object in
 * the sink, and opens the state database. Every check runs even after a failure,
 * so one run shows everything that is wrong; each result is handed to
 * `onResult` as it comes. It also says what the privacy policy hashes and drops.
 */
export async function checkJob(config: Config, logger: Logger, options: CheckJobOptions = {}): Promise<CheckResult[]> {
  const clock = options.clock ?? systemClock;
  const results: CheckResult[] = [];
  const record = (result: CheckResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  record({ name: 'config', status: 'ok', detail: 'valid' });
  record(
    await attempt('privacy', async () => formatPrivacy(compilePrivacyPolicy(config.privacy, options.hashKey).summary)),
  );
  const client = apiClientFromConfig(config.source, logger);
  let waitedBefore = 0;
  const notice = setInterval(() => {
    const waited = client.stats().waitedMs;
    if (waited > waitedBefore) options.onWaiting?.(waited);
    waitedBefore = waited;
  }, options.waitNoticeMs ?? 2000);
  notice.unref();
  try {
    const me = await attempt('api', async () => {
      const user = await client.api.me();
      return `GET /me answers (${String(user.name ?? user.email ?? 'user')})`;
    });
    record(me);
    if (me.status === 'ok') {
      // The inboxes probe below says what is wrong with GET /inboxes.
      const inboxIds = await listInboxIds(client.api).catch((): string[] => []);
      const ctx: ProbeContext = { api: client.api, inboxIds, today: isoNow(clock).slice(0, 10) };
      const streams = buildStreams(streamSettingsOf(config));
      for (const name of config.streams ?? STREAM_NAMES) {
        const definition = streamDefinition(name);
        const probe = () => probeStream(definition, streamFor(name, streams), ctx);
        record(await attempt(`stream ${name}`, probe, isSkippedOn403(definition) ? definition : undefined));
      }
    }
  } finally {
    clearInterval(notice);
    client.close();
  }
  record(
    await attempt('destination', async () => {
      const sink = createSink(config.destination, logger);
      const key = `_probe/${newRunId(new Date(clock.now()))}.txt`;
      await sink.putBytes(key, Buffer.from('helpdesk-sync check\n'), 'text/plain');
      const head = await sink.head(key);
      if (!head) throw new SinkError(`wrote ${key} but cannot read it back`);
      await sink.delete(key);
      return `${sink.describe()}: wrote, read and deleted ${key}`;
    }),
  );
  record(
    await attempt('state', async () => {
      // A state in object storage is downloaded (read only) and opened like a local one.
      const state = await openStateFromConfig(stateSettingsOf(config), { logger });
      try {
        verifyIntegrity(state.db.db, state.place);
      } finally {
        await state.close();
      }
      return `${state.location} opens, every page reads back (quick_check)`;
    }),
  );
  return results;
}
