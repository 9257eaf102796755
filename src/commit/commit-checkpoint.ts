import { rm } from 'node:fs/promises';
import { type Clock, isoNow } from '../clock.js';
import type { StateChange } from '../kv-state.js';
import type { Logger } from '../log.js';
import type { WrittenFile } from '../output/batch-writer.js';
import { contentTypeOf, type FaultPoint, type Sink } from '../output/sinks/sink.js';
import type { TableName } from '../output/tables.js';
import type { CheckpointStore, FileRecord } from '../state/checkpoint-store.js';

export interface CommitContext {
  runId: string;
  store: CheckpointStore;
  sink: Sink;
  logger: Logger;
  clock: Pick<Clock, 'now'>;
  fault: FaultPoint;
  /** Each table's schema version, as the run's privacy policy makes it (recorded per file). */
  schemaVersions: Readonly<Record<TableName, string>>;
  /** Files uploaded at once. @default 4 */
  uploadConcurrency?: number;
  /**
   * Runs once the checkpoint holds the work (its files and changes recorded as
   * pending, or changes without files about to be applied): from then on the
   * marks of the spool describe nothing a recovery needs (output-session.ts).
   */
  recorded?: () => Promise<void>;
}

function toRecord(runId: string, f: WrittenFile, versions: CommitContext['schemaVersions']): FileRecord {
  return {
    key: f.key,
    run_id: runId,
    table_name: f.table,
    kind: f.kind,
    rows: f.rows,
    bytes: f.bytes,
    sha256: f.sha256,
    schema_version: versions[f.table],
    spool_path: f.path,
  };
}

/**
 * Uploads with a few files in flight. After a failure no new upload starts and the
 * ones in flight are awaited before the error is thrown, so nothing is still being
 * written when the caller (abort, recovery) decides what to delete.
 */
async function uploadAll(ctx: CommitContext, files: readonly WrittenFile[]): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < files.length) {
      const f = files[next++]!;
      try {
        await ctx.sink.put(f.key, f.path, { sha256: f.sha256, bytes: f.bytes, contentType: contentTypeOf(f.key) });
      } catch (error) {
        failed = true;
        throw error;
      }
      await ctx.fault('uploaded');
    }
  };
  const workers = Math.min(ctx.uploadConcurrency ?? 4, files.length);
  const settled = await Promise.allSettled(Array.from({ length: workers }, worker));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * The commit protocol for one checkpoint (docs/architecture.md):
 * 1. record the closed files and the staged changes as pending (one transaction);
 * 2. upload every file to the sink;
 * 3. one transaction marks the files committed and applies the changes.
 * A crash between 1 and 3 leaves a pending checkpoint that recovery resolves.
 * On an upload failure the checkpoint stays pending and the error is thrown.
 */
export async function commitCheckpoint(
  ctx: CommitContext,
  files: readonly WrittenFile[],
  changes: readonly StateChange[],
): Promise<void> {
  if (files.length === 0) {
    // Changes that wait for no file (e.g. "thread fetched, nothing changed") apply at once.
    // The marks go first: recovered after the changes, they would set older values again.
    await ctx.recorded?.();
    if (changes.length > 0) ctx.store.applyNow(changes);
    return;
  }
  const records = files.map((f) => toRecord(ctx.runId, f, ctx.schemaVersions));
  const checkpointId = ctx.store.recordPending(ctx.runId, isoNow(ctx.clock), records, changes);
  // A pending checkpoint newer than the marks makes recovery give them up, so they
  // can go now; going before this, a kill while the files close lost their work.
  await ctx.recorded?.();
  await ctx.fault('pending-recorded');
  await uploadAll(ctx, files);
  await ctx.fault('before-commit');
  ctx.store.commit(checkpointId, isoNow(ctx.clock));
  await ctx.fault('after-commit');
  ctx.logger.debug(
    { event: 'output.checkpoint', checkpoint_id: checkpointId, files: files.length, changes: changes.length },
    'checkpoint committed',
  );
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}
