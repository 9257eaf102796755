import { apiClientFromConfig, type HelpdeskApi } from '../api/index.js';
import { type Clock, isoNow, systemClock } from '../clock.js';
import { type Config, STREAM_NAMES, type StreamName } from '../config/schema.js';
import { SinkError } from '../errors.js';
import type { Logger } from '../log.js';
import { compilePrivacyPolicy, formatPrivacy } from '../output/privacy/privacy-policy.js';
import { newRunId } from '../output/run-id.js';
import { createSink } from '../output/sinks/create-sink.js';
import { scrubSecrets } from '../redact.js';
import { verifyIntegrity } from '../state/explain-state-error.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { isForbidden } from '../streams/api-error-status.js';
import {
  DEFAULT_REPORT_HISTORY_DAYS,
  largeBackfillMessage,
  REPORT_REQUESTS_WARN_AT,
  reportDays,
} from '../streams/report-days.js';
import { forbiddenSkip, isSkippedOn403, type SkippableStream } from '../streams/skip-when-forbidden.js';

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

async function first<T>(items: AsyncIterable<T>): Promise<T | undefined> {
  for await (const item of items) return item;
  return undefined;
}

/** A stream's probe: its detail, or a warning that sync would go on without it. */
type Probe = () => Promise<string | { warn: string }>;

/** What a first sync's reports cost: a warning past REPORT_REQUESTS_WARN_AT requests. */
function reportsCost(config: Config, inboxes: number, today: string): string | { warn: string } {
  const days = reportDays({
    startDate: config.reports.start_date,
    today,
    lookbackDays: config.reports.lookback_days,
    fullRefresh: true,
    pulled: () => false,
  }).length;
  const requests = days * inboxes;
  const answers = 'GET /reports/{inbox_id}/productivity answers';
  if (requests <= REPORT_REQUESTS_WARN_AT) return `${answers}; a first sync pulls ${days} days × ${inboxes} inboxes`;
  const start = config.reports.start_date ?? `${DEFAULT_REPORT_HISTORY_DAYS} days ago`;
  const rpm = config.source.rate_limit.requests_per_minute;
  return { warn: `${answers}; ${largeBackfillMessage(requests, days, inboxes, start, rpm)}` };
}

/** One cheap read per stream, proving the token may read what the stream needs. */
function streamProbe(api: HelpdeskApi, config: Config, stream: StreamName, inboxIds: string[], today: string): Probe {
  const endpoint = config.source.conversations_endpoint;
  const inboxId = inboxIds[0];
  const viaScan = async () => 'read through the conversation list';
  const probes: Record<StreamName, Probe> = {
    conversations: async () => {
      await first(api.listConversations());
      return `${endpoint === 'mine' ? 'GET /conversations/mine' : 'POST /search'} answers`;
    },
    messages: viaScan,
    contacts: viaScan,
    tags: async () => {
      if (!inboxId) return 'no inbox to probe';
      await first(api.listInboxTags(inboxId));
      return 'GET /inboxes/{inbox_id}/tags answers';
    },
    inboxes: async () => {
      await first(api.listInboxes());
      return 'GET /inboxes answers';
    },
    users: async () => {
      await first(api.listUsers());
      return 'GET /settings/users answers (scope users:read)';
    },
    business_hours: async () => `GET /business-hours answers (${(await api.listBusinessHours()).length} profiles)`,
    holidays: async () => `GET /holidays answers (${(await api.listHolidays()).length} holidays)`,
    reports: async () => {
      if (!inboxId) return 'no inbox to probe';
      await api.productivityReport(inboxId, today, today);
      return reportsCost(config, inboxIds.length, today);
    },
  };
  return probes[stream];
}

/** `warnOn403`: a stream a sync skips on a 403 (docs/streams.md), whose check warns the same way. */
async function attempt(name: string, fn: Probe, warnOn403?: SkippableStream): Promise<CheckResult> {
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
      const inboxIds: string[] = [];
      try {
        for await (const inbox of client.api.listInboxes()) if (typeof inbox.id === 'string') inboxIds.push(inbox.id);
      } catch {
        // The inboxes probe below says what is wrong with GET /inboxes.
      }
      const today = isoNow(clock).slice(0, 10);
      for (const stream of config.streams ?? STREAM_NAMES) {
        const probe = streamProbe(client.api, config, stream, inboxIds, today);
        record(await attempt(`stream ${stream}`, probe, isSkippedOn403(stream) ? stream : undefined));
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
      const state = await openStateFromConfig(config, { logger });
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
