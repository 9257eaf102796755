import { existsSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ApiClient, apiClientFromConfig, type HelpdeskApi } from '../api/index.js';
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
import type { Sink } from '../output/sinks/sink.js';
import { scrubSecrets } from '../redact.js';
import { verifyIntegrity } from '../state/explain-state-error.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { isForbidden } from '../streams/api-error-status.js';
import { listInboxIds } from '../streams/inbox-ids.js';
import { buildStreams, streamFor } from '../streams/registry.js';
import { forbiddenSkip, isSkippedOn403 } from '../streams/skip-when-forbidden.js';
import { probeStream } from '../streams/stream-probe.js';
import type { ProbeContext, ProbeResult } from '../streams/types.js';
import { reachHost } from './reach-host.js';
import { streamSettingsOf } from './stream-settings-of.js';

export interface CheckResult {
  name: string;
  /** `warn`: a sync runs, but not as the config may intend (a stream it will skip, hours of reports). */
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** What to do about a failure, when the caller's `hint` knows (the variable a refused token came from). */
  hint?: string;
}

/**
 * How long `check` waits for the API's host to take a connection: a host that
 * is down or mistyped is said within seconds, not after a sync's retries.
 */
const CHECK_CONNECT_MS = 3000;

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
  /** What to do about the error that failed a check, in the caller's words (the CLI knows the config's variables). */
  hint?: (error: unknown) => string | undefined;
  /**
   * The push files validated as `plan` validates them (the CLI's, from the push
   * layer): their counts, or the plan's own error. `api` is absent when the API
   * did not answer. Not called when the config names no push file.
   */
  pushFiles?: (api: Pick<HelpdeskApi, 'listInboxes'> | undefined) => Promise<string>;
}

/** A stream's probe: its detail, or a warning that sync would go on without it. */
type Probe = () => Promise<ProbeResult>;

/**
 * One check: its detail, a warning, or the failure with what to do about it.
 * `warnOn403`: a stream a sync skips on a 403 (docs/streams.md), whose check warns the same way.
 */
async function attempt(
  name: string,
  fn: Probe,
  hint: CheckJobOptions['hint'],
  warnOn403?: StreamDefinition,
): Promise<CheckResult> {
  try {
    const detail = await fn();
    return typeof detail === 'string' ? { name, status: 'ok', detail } : { name, status: 'warn', detail: detail.warn };
  } catch (error) {
    if (warnOn403 && isForbidden(error)) {
      return { name, status: 'warn', detail: forbiddenSkip(warnOn403, error).message };
    }
    const detail = scrubSecrets(error instanceof Error ? error.message : String(error));
    const next = hint?.(error);
    return { name, status: 'fail', detail, ...(next ? { hint: scrubSecrets(next) } : {}) };
  }
}

/**
 * `helpdesk-sync check`: the config is already valid when this runs. Reaches the
 * API (a connection to its host first, then /me), probes each configured
 * stream, validates the push files as `plan` does, writes and deletes a probe
 * object in the sink, and opens the state read-only. Every check runs even after
 * a failure, so one run shows everything that is wrong; each result is handed
 * to `onResult` as it comes. It also says what the privacy policy hashes and
 * drops. It leaves nothing behind: no state is created, and the probe's
 * directories are removed when the probe made them.
 */
export async function checkJob(config: Config, logger: Logger, options: CheckJobOptions = {}): Promise<CheckResult[]> {
  const clock = options.clock ?? systemClock;
  const results: CheckResult[] = [];
  const record = (result: CheckResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const check = (name: string, fn: Probe, warnOn403?: StreamDefinition) => attempt(name, fn, options.hint, warnOn403);
  record({ name: 'config', status: 'ok', detail: 'valid' });
  record(
    await check('privacy', async () => formatPrivacy(compilePrivacyPolicy(config.privacy, options.hashKey).summary)),
  );
  const client = apiClientFromConfig(config.source, logger);
  try {
    const answered = await checkApi(config, client, check, record, options, clock);
    if (options.pushFiles && (config.push.holidays || config.push.business_hours)) {
      const pushFiles = options.pushFiles;
      record(await check('push files', () => pushFiles(answered ? client.api : undefined)));
    }
  } finally {
    client.close();
  }
  record(await check('destination', () => probeDestination(createSink(config.destination, logger), clock)));
  record(
    await check('state', async () => {
      // Read-only: a state in object storage is downloaded, a local one opened without writing (none is created).
      const state = await openStateFromConfig(stateSettingsOf(config), { logger });
      try {
        if (state.absent) return `${state.location}: no state yet (the first sync creates it)`;
        verifyIntegrity(state.db.db, state.place);
      } finally {
        await state.close();
      }
      return `${state.location} opens, every page reads back (quick_check)`;
    }),
  );
  return results;
}

/** The API's host, then /me, then each configured stream; true when the API answered. */
async function checkApi(
  config: Config,
  client: ApiClient,
  check: (name: string, fn: Probe, warnOn403?: StreamDefinition) => Promise<CheckResult>,
  record: (result: CheckResult) => void,
  options: CheckJobOptions,
  clock: Pick<Clock, 'now'>,
): Promise<boolean> {
  let waitedBefore = 0;
  const notice = setInterval(() => {
    const waited = client.stats().waitedMs;
    if (waited > waitedBefore) options.onWaiting?.(waited);
    waitedBefore = waited;
  }, options.waitNoticeMs ?? 2000);
  notice.unref();
  try {
    const me = await check('api', async () => {
      await reachHost(config.source.base_url, {
        timeoutMs: Math.min(config.source.connect_timeout_ms, CHECK_CONNECT_MS),
        localAddress: config.source.local_address,
      });
      const user = await client.api.me();
      return `GET /me answers (${String(user.name ?? user.email ?? 'user')})`;
    });
    record(me);
    if (me.status !== 'ok') return false;
    // The inboxes probe below says what is wrong with GET /inboxes.
    const inboxIds = await listInboxIds(client.api).catch((): string[] => []);
    const ctx: ProbeContext = { api: client.api, inboxIds, today: isoNow(clock).slice(0, 10) };
    const streams = buildStreams(streamSettingsOf(config));
    for (const name of config.streams ?? STREAM_NAMES) {
      const definition = streamDefinition(name);
      const probe = () => probeStream(definition, streamFor(name, streams), ctx);
      record(await check(`stream ${name}`, probe, isSkippedOn403(definition) ? definition : undefined));
    }
    return true;
  } finally {
    clearInterval(notice);
  }
}

/**
 * Writes, reads back and deletes a probe object. On a local directory the
 * folders the write made (the destination itself on a first run, `_probe/`)
 * are removed again, so the probe leaves the disk as it found it.
 */
async function probeDestination(sink: Sink, clock: Pick<Clock, 'now'>): Promise<string> {
  const key = `_probe/${newRunId(new Date(clock.now()))}.txt`;
  const made = sink.localPath ? foldersToMake(dirname(sink.localPath(key))) : [];
  try {
    await sink.putBytes(key, Buffer.from('helpdesk-sync check\n'), 'text/plain');
    const head = await sink.head(key);
    if (!head) throw new SinkError(`wrote ${key} but cannot read it back`);
    await sink.delete(key);
  } finally {
    for (const dir of made) {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty (something else wrote there meanwhile) or already gone: left as it is.
      }
    }
  }
  return `${sink.describe()}: wrote, read and deleted ${key}`;
}

/** The folders a write into `dir` creates: `dir` and its parents that do not exist yet, deepest first. */
function foldersToMake(dir: string): string[] {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  return missing;
}
