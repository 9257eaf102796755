import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { type ApiClient, apiClientFromConfig, type RequestQueue, requestStatsSince } from '../api/index.js';
import { type Clock, systemClock } from '../clock.js';
import { openOutputSession } from '../commit/output-session.js';
import { recoverPendingCheckpoints } from '../commit/recover.js';
import type { Config, StreamName } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import { openLockedState } from '../lock/locked-state.js';
import type { Logger } from '../log.js';
import { sourceAccount } from '../output/manifest.js';
import { compilePrivacyPolicy } from '../output/privacy/privacy-policy.js';
import { newRunId } from '../output/run-id.js';
import { createSink } from '../output/sinks/create-sink.js';
import { explainStateError } from '../state/explain-state-error.js';
import { createKvStore } from '../state/kv-store.js';
import { readRateSpend, saveRateSpend } from '../state/rate-spend-store.js';
import { type RunTraffic, saveRunTraffic } from '../state/run-traffic-store.js';
import { openSqliteScratchSpace, type SqliteScratchSpace } from '../state/sqlite-scratch-space.js';
import { createStateReader } from '../state/state-reader.js';
import { memoizeReads } from '../streams/memoize-reads.js';
import { RequestTimeline } from './request-timeline.js';
import { runDeadline } from './run-deadline.js';
import { progressBeforeStreams, runSync, type SyncProgress, type SyncSummary } from './run-sync.js';
import { sourceIdentity } from './source-identity.js';
import { streamSettingsOf } from './stream-settings-of.js';

export interface SyncJobOptions {
  streams?: StreamName[];
  fullRefresh?: StreamName[] | true;
  signal?: AbortSignal;
  logger: Logger;
  onProgress?: (progress: SyncProgress) => void;
  /** Time of the run (run id, `_synced_at`, state rows, summary). @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** The process-wide request queue to share (the daemon's). @default a queue of this run's own */
  queue?: RequestQueue;
  /** Key of the privacy policy's `hash` (the CLI reads HELPDESK_HASH_KEY); needed only when a column is hashed. */
  hashKey?: string;
}

export interface SyncJobResult {
  summary: SyncSummary;
  manifestKey: string;
  /** Where the output is, in the sink's words: `local directory /srv/out`, `s3://bucket/prefix/`. */
  location: string;
  recovered: { committed: number; superseded: number };
}

/**
 * The composition root of one sync run (docs/architecture.md): builds the client, queue,
 * sink, state and output session, recovers what a crashed run left, runs the
 * streams, and writes the manifest last. Everything it builds is closed here.
 */
export async function syncJob(config: Config, options: SyncJobOptions): Promise<SyncJobResult> {
  const clock = options.clock ?? systemClock;
  // Before the lock and any request: a policy that cannot be applied stops the run (exit 64).
  const privacy = compilePrivacyPolicy(config.privacy, options.hashKey);
  const locked = await openLockedState(stateSettingsOf(config), 'sync', options.logger);
  const { state } = locked;
  const db = state.db;
  const spoolDir = spoolDirOf(config, state.workDir);
  let client: ApiClient | undefined;
  let scratch: SqliteScratchSpace | undefined;
  let saveTraffic: (() => void) | undefined;
  let saveSpend: (() => void) | undefined;
  let failed = false;
  try {
    const lane = config.account && { name: config.account.name, weight: config.account.share };
    // What the last run of this state spent of the rate window: a run started within that window
    // paces from what it left (a shared queue, the daemon's, knows it already).
    const kv = createKvStore(db);
    const prior = options.queue ? undefined : readRateSpend(kv, config.source.base_url);
    const api = apiClientFromConfig(config.source, options.logger, options.queue, lane, prior);
    client = api;
    // Recorded at every checkpoint and at the end: a crashed run's requests count too.
    saveSpend = () => {
      const spend = api.queue.spend();
      if (spend) saveRateSpend(kv, config.source.base_url, spend);
    };
    // A shared (daemon) queue counts every run it served: report this run's share only.
    const requestsAtStart = api.stats();
    const sink = createSink(config.destination, options.logger);
    const recovered = await recoverPendingCheckpoints(db, sink, options.logger, { spoolDir });
    // Recovery has settled whatever a crashed run left in the spool (committed,
    // re-uploaded or superseded): anything still there is an orphan.
    rmSync(spoolDir, { recursive: true, force: true });
    mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
    scratch = openSqliteScratchSpace(join(spoolDir, 'scan-scratch.sqlite'));
    // The run's api: a read without a query (the inbox list, GET /me) is sent once per run.
    const runApi = memoizeReads(api.api);
    // The run starts before its first request: a wait for the rate window (the last run's, or a
    // 429's) before the first stream is the run's time too, and counts down in its progress.
    const startedAt = new Date(clock.now());
    const runId = newRunId(startedAt);
    const requestStats = () => requestStatsSince(requestsAtStart, api.stats());
    const rateWindowMs = () => api.queue.rateWindow().ms;
    const settings = streamSettingsOf(config);
    const selection = { streams: options.streams, fullRefresh: options.fullRefresh };
    const stopEarlyProgress = progressBeforeStreams(
      {
        settings,
        configuredStreams: config.streams,
        requestStats,
        onProgress: options.onProgress,
        rateWindowMs,
        clock,
      },
      selection,
      { runId, startedMs: startedAt.getTime() },
    );
    // Asked before any stream: a token of another organization shows in the manifest, not in a warehouse.
    const source = await sourceIdentity(runApi, config.source.base_url, options.signal).finally(stopEarlyProgress);
    const log = options.logger.child({ run_id: runId });
    const timeline = new RequestTimeline(startedAt.getTime());
    saveTraffic = () => saveRunTraffic(db.db, runTraffic(runId, timeline, api.queue, config));
    const output = await openOutputSession({
      db,
      sink,
      runId,
      startedAt,
      maxRecordsPerFile: config.destination.max_records_per_file,
      maxBytesPerFile: config.destination.max_bytes_per_file,
      format: config.destination.format,
      spoolDir,
      logger: log,
      clock,
      privacy,
      source,
      // The `_account` of every row: the configured name, else the organization /me names.
      account: config.account?.name ?? sourceAccount(source),
      onCommitted: () => {
        saveSpend?.();
        state.committed();
      },
      beforeManifest: () => state.flush(),
    });
    let summary: SyncSummary;
    const deadline = runDeadline(config.run.deadline_seconds, options.signal);
    try {
      summary = await runSync(
        {
          api: runApi,
          requestStats,
          output,
          state: createStateReader(db),
          scratch,
          settings,
          configuredStreams: config.streams,
          logger: log,
          clock,
          startedAt,
          signal: deadline.signal,
          onProgress: options.onProgress,
          rateWindowMs,
          timeline,
          checkpointEvery: { rows: config.checkpoint.every_rows, ms: config.checkpoint.every_seconds * 1000 },
        },
        selection,
      );
    } catch (error) {
      await output.abort();
      throw error;
    }
    // A partial run may have been cut short by the deadline too: it says so as well.
    const reached = summary.status === 'succeeded' ? undefined : deadline.warning();
    if (reached) summary.warnings.push(reached);
    const { manifestKey } = await output.finish(summary);
    log.info({ event: 'sync.summary', summary, manifest: manifestKey }, 'sync finished');
    return { summary, manifestKey, recovered, location: sink.describe() };
  } catch (error) {
    failed = true;
    // A SQLite error that escaped a store names neither the file nor the setting: say both.
    throw explainStateError(error, state.place);
  } finally {
    await client?.drain().catch(() => undefined);
    client?.close();
    scratch?.close();
    rmSync(spoolDir, { recursive: true, force: true });
    try {
      // A failed run leaves the state as it was (what committed at its checkpoints recorded its spend).
      if (!failed) saveSpend?.();
      saveTraffic?.();
    } catch (error) {
      // The chart of a run is worth less than the run: a failure here is logged, never fatal.
      options.logger.warn(
        { event: 'state.traffic_not_saved', err: error },
        "could not record the run's requests per window",
      );
    }
    // The state is saved even after a failure: what committed is durable output it must remember.
    await locked.close({ save: true }).catch((error: unknown) => {
      if (!failed) throw error;
      options.logger.error({ event: 'state.save_failed', err: error }, 'could not save the state after a failed run');
    });
  }
}

/** The run's requests per window, at the window length its queue ended with. */
function runTraffic(runId: string, timeline: RequestTimeline, queue: RequestQueue, config: Config): RunTraffic {
  const window = queue.rateWindow();
  return {
    run_id: runId,
    window_ms: window.ms,
    window_source: window.source,
    limit_per_window: Math.max(1, Math.floor((config.source.rate_limit.requests_per_minute * window.ms) / 60_000)),
    windows: timeline.windows(window.ms),
  };
}

/**
 * Files are written here before they go to the sink: `<state name>.spool/` under
 * `destination.spool_path` when set, else beside a local state file, else in the
 * private directory of a state kept in object storage. One fixed place per state
 * (the run lock makes it this run's alone) so a crashed run's leftovers are found
 * and cleared by the next run instead of piling up in the temp directory, and
 * named after the state so that two configs whose states share a directory never
 * clear each other's spool.
 */
function spoolDirOf(config: Config, stateWorkDir: string | undefined): string {
  const base =
    config.destination.type === 's3' && config.destination.spool_path
      ? config.destination.spool_path
      : (stateWorkDir ?? dirname(config.state.path));
  const name = posix.basename(config.state.path);
  const stem = name.slice(0, name.length - posix.extname(name).length) || name;
  // The accounts of one config share destination.spool_path: each its own spool there.
  return join(base, `${config.account ? `${config.account.name}-` : ''}${stem}.spool`);
}
