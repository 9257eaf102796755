import { rm } from 'node:fs/promises';
import { type Clock, isoNow } from '../clock.js';
import type { Logger } from '../log.js';
import type { Sink } from '../output/sinks/sink.js';
import type { CheckpointStore } from '../state/checkpoint-store.js';

export interface DiscardContext {
  store: CheckpointStore;
  sink: Sink;
  logger: Logger;
  clock: Pick<Clock, 'now'>;
}

/**
 * Removes the files of superseded checkpoints from the sink (and the spool). Their
 * state changes were dropped, so their rows will be extracted again: keeping them
 * would only add duplicates that no manifest lists. A failed delete is retried at
 * the next start (the file stays `superseded`), it never fails the run.
 */
export async function deleteSuperseded(ctx: DiscardContext): Promise<number> {
  let deleted = 0;
  for (const file of ctx.store.superseded()) {
    try {
      await ctx.sink.delete(file.key);
      if (file.spool_path) await rm(file.spool_path, { force: true });
      ctx.store.markDeleted(file.key);
      deleted++;
    } catch (error) {
      ctx.logger.warn({ err: error, key: file.key }, 'could not delete a superseded file; retrying at the next start');
    }
  }
  return deleted;
}

/** Gives up the pending checkpoints of one run (abort), or of every run when runId is omitted. */
export async function discardPending(ctx: DiscardContext, runId?: string): Promise<number> {
  let count = 0;
  for (const checkpoint of ctx.store.pending()) {
    if (runId !== undefined && checkpoint.run_id !== runId) continue;
    ctx.store.supersede(checkpoint.checkpoint_id, isoNow(ctx.clock));
    count++;
  }
  await deleteSuperseded(ctx);
  return count;
}
