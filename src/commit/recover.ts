import { rm, stat } from 'node:fs/promises';
import { type Clock, isoNow, systemClock } from '../clock.js';
import type { Logger } from '../log.js';
import { fileSha256 } from '../output/file-sha256.js';
import { manifestKey } from '../output/object-keys.js';
import { contentTypeOf, type FaultPoint, type Sink } from '../output/sinks/sink.js';
import { createCheckpointStore, type StoredFile } from '../state/checkpoint-store.js';
import type { StateDb } from '../state/database.js';
import { createRunStore } from '../state/run-store.js';
import { deleteSuperseded } from './discard-pending.js';

export interface RecoverOptions {
  /** Time of the state rows it writes. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  faultPoint?: FaultPoint;
}

async function spoolCopyMatches(file: StoredFile): Promise<boolean> {
  if (!file.spool_path) return false;
  try {
    if ((await stat(file.spool_path)).size !== file.bytes) return false;
    return (await fileSha256(file.spool_path)) === file.sha256;
  } catch {
    return false;
  }
}

/**
 * A file is durable when the sink holds it with the recorded size (and sha256,
 * when the sink can tell). One the sink lacks is uploaded again from its spool
 * copy if that copy is still there, intact.
 */
async function makeDurable(file: StoredFile, sink: Sink, logger: Logger): Promise<boolean> {
  const head = await sink.head(file.key);
  if (head && head.bytes === file.bytes && (head.sha256 === undefined || head.sha256 === file.sha256)) return true;
  if (!(await spoolCopyMatches(file))) {
    logger.warn({ key: file.key, found: head }, 'file of a pending checkpoint is not in the sink');
    return false;
  }
  await sink.put(file.key, file.spool_path!, {
    sha256: file.sha256,
    bytes: file.bytes,
    contentType: contentTypeOf(file.key),
  });
  return true;
}

/**
 * Runs at start, before a new run, under the run lock. Resolves what a crashed
 * run left behind (docs/architecture.md "state never runs ahead of durable output"):
 * - a pending checkpoint whose every file is durable → committed (its state
 *   changes applied in the same transaction that marks the files committed);
 * - otherwise → superseded: its state changes are dropped and any of its files
 *   already uploaded are deleted; the rows are re-extracted since state did not move;
 * - a manifest left half-done → confirmed if it is in the sink, else its files
 *   go back to "unlisted" so the next manifest lists them (exactly once);
 * - runs left `running` are marked `crashed`.
 */
export async function recoverPendingCheckpoints(
  db: StateDb,
  sink: Sink,
  logger: Logger,
  options: RecoverOptions = {},
): Promise<{ committed: number; superseded: number }> {
  const clock = options.clock ?? systemClock;
  const fault = options.faultPoint ?? (() => undefined);
  const store = createCheckpointStore(db);
  const runs = createRunStore(db);
  let committed = 0;
  let superseded = 0;
  for (const checkpoint of store.pending()) {
    const files = store.filesOf(checkpoint.checkpoint_id);
    let durable = true;
    for (const file of files) if (!(await makeDurable(file, sink, logger))) durable = false;
    if (durable) {
      store.commit(checkpoint.checkpoint_id, isoNow(clock));
      committed++;
      for (const file of files) if (file.spool_path) await rm(file.spool_path, { force: true });
    } else {
      store.supersede(checkpoint.checkpoint_id, isoNow(clock));
      superseded++;
    }
    await fault('recover-resolved');
    logger.info(
      { event: 'output.recover', checkpoint_id: checkpoint.checkpoint_id, run_id: checkpoint.run_id, durable },
      durable ? 'pending checkpoint committed' : 'pending checkpoint superseded',
    );
  }
  await deleteSuperseded({ store, sink, logger, clock });
  for (const run of runs.writingManifest()) {
    if (await sink.head(manifestKey(run.run_id))) runs.confirmManifest(run.run_id, isoNow(clock));
    else runs.releaseClaim(run.run_id);
    await fault('recover-manifest');
  }
  for (const run of runs.staleRunning()) runs.end(run.run_id, 'crashed', isoNow(clock));
  return { committed, superseded };
}
