import { apiClientFromConfig } from '../api/client-from-config.js';
import type { HelpdeskApi } from '../api/types.js';
import { type Clock, isoNow, systemClock } from '../clock.js';
import { type Config, STREAM_NAMES, type StreamName } from '../config/schema.js';
import { SinkError } from '../errors.js';
import type { Logger } from '../log.js';
import { compilePrivacyPolicy, formatPrivacy } from '../output/privacy/privacy-policy.js';
import { newRunId } from '../output/run-id.js';
import { createSink } from '../output/sinks/create-sink.js';
import { scrubSecrets } from '../redact.js';
import { openStateFromConfig } from '../state/state-from-config.js';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

async function first<T>(items: AsyncIterable<T>): Promise<T | undefined> {
  for await (const item of items) return item;
  return undefined;
}

/** One cheap read per stream, proving the token may read what the stream needs. */
function streamProbe(
  api: HelpdeskApi,
  endpoint: 'search' | 'mine',
  stream: StreamName,
  inboxId: string | undefined,
  clock: Pick<Clock, 'now'>,
): () => Promise<string> {
  const today = isoNow(clock).slice(0, 10);
  const viaScan = async () => 'read through the conversation list';
  const probes: Record<StreamName, () => Promise<string>> = {
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
      return 'GET /reports/{inbox_id}/productivity answers';
    },
  };
  return probes[stream];
}

async function attempt(name: string, fn: () => Promise<string>): Promise<CheckResult> {
  try {
    return { name, ok: true, detail: await fn() };
  } catch (error) {
    return { name, ok: false, detail: scrubSecrets(error instanceof Error ? error.message : String(error)) };
  }
}

/**
 * `helpdesk-sync check`: the config is already valid when this runs. Reaches the
 * API (/me), probes each configured stream, writes and deletes a probe object in
 * the sink, and opens the state database. Every check runs even after a failure,
 * so one run shows everything that is wrong. It also says what the privacy policy
 * hashes and drops (`hashKey`: its key, when a column is hashed).
 */
export async function checkJob(
  config: Config,
  logger: Logger,
  clock: Pick<Clock, 'now'> = systemClock,
  hashKey?: string,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [{ name: 'config', ok: true, detail: 'valid' }];
  results.push(
    await attempt('privacy', async () => formatPrivacy(compilePrivacyPolicy(config.privacy, hashKey).summary)),
  );
  const client = apiClientFromConfig(config.source, logger);
  try {
    const me = await attempt('api', async () => {
      const body = await client.api.me();
      const user = body;
      return `GET /me answers (${String(user.name ?? user.email ?? 'user')})`;
    });
    results.push(me);
    if (me.ok) {
      const inbox = await first(client.api.listInboxes()).catch(() => undefined);
      const inboxId = typeof inbox?.id === 'string' ? inbox.id : undefined;
      for (const stream of config.streams ?? STREAM_NAMES) {
        results.push(
          await attempt(
            `stream ${stream}`,
            streamProbe(client.api, config.source.conversations_endpoint, stream, inboxId, clock),
          ),
        );
      }
    }
  } finally {
    client.close();
  }
  results.push(
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
  results.push(
    await attempt('state', async () => {
      // A state in object storage is downloaded (read only) and opened like a local one.
      const state = await openStateFromConfig(config, { logger });
      await state.close();
      return `${state.location} opens`;
    }),
  );
  return results;
}
