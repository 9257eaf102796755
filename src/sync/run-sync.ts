import type { HelpdeskApi, RequestStats } from '../api/index.js';
import { type Clock, systemClock } from '../clock.js';
import { type CheckpointEvery, CheckpointPolicy } from '../commit/checkpoint-policy.js';
import type { OutputSession } from '../commit/output-session.js';
import type { StreamName } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { ScratchSpace } from '../scratch-space.js';
import { buildStreams, type PlannedStream, planStreams } from '../streams/registry.js';
import { STREAM_SKIPPED } from '../streams/skip-when-forbidden.js';
import type { StreamSettings } from '../streams/stream-settings.js';
import type { StateReader, StreamContext, StreamCounter } from '../streams/types.js';
import { EmitWriter } from './emit-writer.js';
import { ProgressTracker } from './progress-tracker.js';
import { type RequestTimeline, TIMELINE_SLOT_MS } from './request-timeline.js';
import { resolveSelection, type Selection } from './resolve-selection.js';
import { streamFailure } from './stream-failure.js';
import { buildSummary } from './summary/build-summary.js';
import type { StreamStatus, SyncProgress, SyncSummary } from './sync-types.js';

export type { StreamProgress, SyncProgress, SyncSummary, TableCounts } from './sync-types.js';

export interface SyncDeps {
  /** The run's api: its reads without a query answered once per run (memoizeReads). */
  api: HelpdeskApi;
  requestStats(): RequestStats;
  output: OutputSession;
  state: StateReader;
  /** Where streams keep per-conversation bookkeeping off the heap. @default in memory */
  scratch?: ScratchSpace;
  /** What the streams get of the config (streamSettingsOf): each stream is built with its own part. */
  settings: StreamSettings;
  /** The config's `streams:`; absent = every stream. */
  configuredStreams?: readonly StreamName[];
  logger: Logger;
  /** Time of the run: checkpoint timing, progress, the summary's times, the reports' today. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /**
   * When the run started: before the caller's own first reads (the source's identity), whose
   * waits for the rate window are the run's too (its duration, its progress). @default now
   */
  startedAt?: Date;
  /** SIGINT/SIGTERM: stop starting work, commit what is complete, return `interrupted`. */
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  /** @default { rows: 5000, ms: 15000 } */
  checkpointEvery?: CheckpointEvery;
  /** How often onProgress is called while nothing is emitted. @default 1000 */
  progressIntervalMs?: number;
  /** The server's rate window as the queue acts on it (progress: how long a wait for the window lasts). */
  rateWindowMs?: () => number;
  /** Counts the run's requests per second for the status page's chart of rate windows. */
  timeline?: RequestTimeline;
}

export interface SyncRunOptions {
  streams?: StreamName[];
  fullRefresh?: StreamName[] | true;
}

/** Everything one run shares while its streams execute. */
interface RunContext {
  deps: SyncDeps;
  selection: Selection;
  api: HelpdeskApi;
  signal: AbortSignal;
  clock: Pick<Clock, 'now'>;
  writer: EmitWriter;
  tracker: ProgressTracker;
  counters: Record<StreamCounter, number>;
}

function streamContext(run: RunContext, planned: PlannedStream, log: Logger): StreamContext {
  const { deps, selection } = run;
  return {
    api: run.api,
    state: deps.state,
    fullRefresh: planned.names.some((n) => selection.fullRefresh.has(n)),
    isFullRefresh: (name) => selection.fullRefresh.has(name),
    selected: new Set(planned.names),
    clock: run.clock,
    log,
    signal: run.signal,
    scratch: deps.scratch,
    metrics: {
      count: (counter, n = 1) => {
        run.counters[counter] += n;
      },
      remaining: (requests) => run.tracker.remaining(requests),
      backfill: (progress) => {
        run.tracker.backfill = progress;
      },
    },
  };
}

/**
 * Runs one stream to its end, writing what it emits. Returns how it ended. What
 * completed before an error is committed first, so nothing is lost and the next
 * run resumes from there; then an error confined to this stream (streamFailure:
 * one endpoint's answer) fails the stream only, and the run goes on with the
 * others; any other error (the token, an unreachable host, the sink, the state,
 * a bug) is rethrown and ends the run. An interruption is neither.
 */
async function runStream(run: RunContext, planned: PlannedStream): Promise<StreamStatus> {
  const label = planned.names.join('+');
  const log = run.deps.logger.child({ stream: label });
  run.tracker.start(planned, run.clock.now());
  log.debug({ event: 'stream.start' }, `stream ${label} started`);
  let skipped = false;
  try {
    for await (const emit of planned.stream.run(streamContext(run, planned, log))) {
      if (emit.kind === 'warning' && emit.code === STREAM_SKIPPED) skipped = true;
      await run.writer.write(emit, planned.names);
    }
  } catch (error) {
    if (!run.signal.aborted) return failStream(run, planned, log, error);
    await run.writer.checkpointQuietly(log);
  }
  await run.writer.checkpointIfDirty();
  const status: StreamStatus = run.signal.aborted ? 'interrupted' : skipped ? 'skipped' : 'done';
  run.tracker.finish(planned, status, run.clock.now());
  log.debug({ event: 'stream.end', status }, `stream ${label} ${status}`);
  return status;
}

/** A stream's error: `failed` when it is confined to the stream; rethrown when it ends the run. */
async function failStream(run: RunContext, planned: PlannedStream, log: Logger, error: unknown): Promise<StreamStatus> {
  const label = planned.names.join('+');
  const failure = streamFailure(error);
  if (!failure) {
    await run.writer.checkpointQuietly(log);
    run.tracker.finish(planned, 'failed', run.clock.now());
    log.error({ event: 'stream.failed', err: error }, `stream ${label} failed`);
    throw error;
  }
  log.error(
    { event: 'stream.failed', code: failure.code, err: error },
    `stream ${label} failed; the run goes on with the other streams`,
  );
  run.tracker.finish(planned, 'failed', run.clock.now());
  // Not quietly: a checkpoint that fails here is the sink's or the state's failure, which ends the run.
  await run.writer.checkpointIfDirty();
  run.writer.failedStream(planned.names, failure);
  return 'failed';
}

function startProgress(run: RunContext): () => void {
  const { onProgress, timeline } = run.deps;
  const sample = () => timeline?.sample(run.clock.now(), run.deps.requestStats());
  const publish = () => {
    sample();
    if (onProgress) onProgress(run.tracker.snapshot(run.clock.now()));
  };
  publish();
  const timers = [
    ...(onProgress ? [setInterval(publish, run.deps.progressIntervalMs ?? 1000)] : []),
    ...(timeline ? [setInterval(sample, TIMELINE_SLOT_MS)] : []),
  ];
  for (const timer of timers) timer.unref();
  return () => {
    for (const timer of timers) clearInterval(timer);
    publish();
  };
}

/** The streams a run selects, in the order it runs them. */
function planOf(deps: Pick<SyncDeps, 'settings' | 'configuredStreams'>, options: SyncRunOptions) {
  const selection = resolveSelection(deps.configuredStreams, options.streams, options.fullRefresh);
  return { selection, plan: planStreams(selection.streams, buildStreams(deps.settings)) };
}

/** The progress of a run of `plan`: the same block before the streams start and while they run. */
function trackerOf(
  deps: Pick<SyncDeps, 'settings' | 'requestStats' | 'rateWindowMs'>,
  plan: ReturnType<typeof planStreams>,
  runId: string,
  startedMs: number,
): ProgressTracker {
  return new ProgressTracker(
    plan,
    runId,
    startedMs,
    deps.settings.rate.requestsPerMinute,
    () => deps.requestStats(),
    deps.rateWindowMs,
  );
}

/**
 * Progress before the streams start, while the caller's first reads may wait (for the rate
 * window, or a 429's pause): the block the run will show, every stream pending, from a second
 * on, so a wait counts down on screen from the start. Returns the function that stops it.
 */
export function progressBeforeStreams(
  deps: Pick<
    SyncDeps,
    'settings' | 'configuredStreams' | 'requestStats' | 'onProgress' | 'progressIntervalMs' | 'rateWindowMs' | 'clock'
  >,
  options: SyncRunOptions,
  run: { runId: string; startedMs: number },
): () => void {
  const { onProgress } = deps;
  if (!onProgress) return () => undefined;
  const clock = deps.clock ?? systemClock;
  const tracker = trackerOf(deps, planOf(deps, options).plan, run.runId, run.startedMs);
  const timer = setInterval(() => onProgress(tracker.snapshot(clock.now())), deps.progressIntervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * One sync run (docs/architecture.md): the selected streams one after another, each
 * emit written to the output session and its state changes staged behind it;
 * checkpoints every `checkpointEvery` rows or ms, at every stream's safe points
 * and at the end of each stream. Never calls output.finish(): the caller does,
 * with this summary.
 */
export async function runSync(deps: SyncDeps, options: SyncRunOptions): Promise<SyncSummary> {
  const clock = deps.clock ?? systemClock;
  const startedAt = deps.startedAt ?? new Date(clock.now());
  const { selection, plan } = planOf(deps, options);
  const policy = new CheckpointPolicy(deps.checkpointEvery, startedAt.getTime());
  const tracker = trackerOf(deps, plan, deps.output.runId, startedAt.getTime());
  const run: RunContext = {
    deps,
    selection,
    api: deps.api,
    signal: deps.signal ?? new AbortController().signal,
    clock,
    writer: new EmitWriter(deps.output, policy, tracker, clock),
    tracker,
    counters: {
      conversations_scanned: 0,
      conversations_changed: 0,
      conversations_relisted: 0,
      messages_fetched: 0,
      forbidden_skipped: 0,
      unreadable_skipped: 0,
      listing_repairs: 0,
      listing_recovered: 0,
    },
  };
  const stopProgress = startProgress(run);
  try {
    for (const planned of plan) {
      if (run.signal.aborted) break;
      await runStream(run, planned);
    }
    await run.writer.checkpointIfDirty();
  } finally {
    stopProgress();
  }
  return buildSummary({
    runId: deps.output.runId,
    status: runStatus(run),
    startedAt,
    finishedAt: new Date(clock.now()),
    selection,
    output: deps.output.stats(),
    requests: deps.requestStats(),
    warnings: run.writer.warnings,
    skipped: run.writer.skipped,
    failed: run.writer.failed,
    counters: run.counters,
    completeness: run.writer.completeness,
    backfill: tracker.backfill,
  });
}

/**
 * How the run ended: `partial` when some part failed (a stream) or something is missing for
 * no known reason (a completeness figure with an unexplained shortfall, `INCOMPLETE`;
 * docs/operations.md, "Exit codes"), even if an interruption came after it, since the next
 * run has something to retry and a person something to look at; else `interrupted` or
 * `succeeded`.
 */
function runStatus(run: RunContext): SyncSummary['status'] {
  if (run.writer.failed.length > 0) return 'partial';
  if (run.writer.completeness.some((figure) => figure.unexplained > 0)) return 'partial';
  return run.signal.aborted ? 'interrupted' : 'succeeded';
}
