import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClientFromConfig } from '../api/client-from-config.js';
import type { RequestQueue } from '../api/request-queue.js';
import type { Config, StreamName } from '../config/schema.js';
import type { Logger } from '../log.js';
import { newRunId } from '../output/run-id.js';
import { createSink } from '../output/sinks/create-sink.js';
import { openStateDb } from '../state/database.js';
import { createStateReader } from '../state/state-reader.js';
import { openOutputSession } from './output-session.js';
import { recoverPendingCheckpoints } from './recover.js';
import { acquireRunLock } from './run-lock.js';
import { runSync, type SyncProgress, type SyncSummary } from './run-sync.js';

export interface SyncJobOptions {
  streams?: StreamName[];
  fullRefresh?: StreamName[] | true;
  signal?: AbortSignal;
  logger: Logger;
  onProgress?: (progress: SyncProgress) => void;
  now?: () => Date;
  /** The process-wide request queue to share (the daemon's). @default a queue of this run's own */
  queue?: RequestQueue;
}

export interface SyncJobResult {
  summary: SyncSummary;
  manifestKey: string;
  recovered: { committed: number; superseded: number };
}

/**
 * The composition root of one sync run (design.md §2): builds the client, queue,
 * sink, state and output session, recovers what a crashed run left, runs the
 * streams, and writes the manifest last. Everything it builds is closed here.
 */
export async function syncJob(config: Config, options: SyncJobOptions): Promise<SyncJobResult> {
  const now = options.now ?? (() => new Date());
  const lock = acquireRunLock(config.state.path, 'sync');
  const db = openStateDb(config.state.path);
  const spoolDir =
    config.destination.type === 's3' && config.destination.spool_path
      ? config.destination.spool_path
      : mkdtempSync(join(tmpdir(), 'helpdesk-sync-spool-'));
  const client = apiClientFromConfig(config.source, options.logger, options.queue);
  try {
    const sink = createSink(config.destination, options.logger);
    const recovered = await recoverPendingCheckpoints(db, sink, options.logger);
    const startedAt = now();
    const runId = newRunId(startedAt);
    const log = options.logger.child({ run_id: runId });
    const output = await openOutputSession({
      db,
      sink,
      runId,
      startedAt,
      maxRecordsPerFile: config.destination.max_records_per_file,
      maxBytesPerFile: config.destination.max_bytes_per_file,
      spoolDir,
      logger: log,
      now,
    });
    let summary: SyncSummary;
    try {
      summary = await runSync(
        {
          api: client.api,
          requestStats: () => client.stats(),
          output,
          state: createStateReader(db),
          config,
          logger: log,
          now,
          signal: options.signal,
          onProgress: options.onProgress,
          checkpointEvery: { rows: config.checkpoint.every_rows, ms: config.checkpoint.every_seconds * 1000 },
        },
        { streams: options.streams, fullRefresh: options.fullRefresh },
      );
    } catch (error) {
      await output.abort();
      throw error;
    }
    const { manifestKey } = await output.finish(summary);
    log.info({ event: 'sync.summary', summary, manifest: manifestKey }, 'sync finished');
    return { summary, manifestKey, recovered };
  } finally {
    await client.drain().catch(() => undefined);
    client.close();
    db.close();
    if (!(config.destination.type === 's3' && config.destination.spool_path))
      rmSync(spoolDir, { recursive: true, force: true });
    lock.release();
  }
}
