import type { Clock } from '../clock.js';
import type { CheckpointPolicy } from '../commit/checkpoint-policy.js';
import type { OutputSession } from '../commit/output-session.js';
import type { StreamName } from '../config/schema.js';
import type { Logger } from '../log.js';
import { type CompletenessFigure, INCOMPLETE, incompleteMessage } from '../streams/completeness.js';
import { STREAM_SKIPPED } from '../streams/skip-when-forbidden.js';
import type { Emit, StateChange } from '../streams/types.js';
import type { ProgressTracker } from './progress-tracker.js';
import { type StreamFailure, streamFailedWarning } from './stream-failure.js';

/**
 * Writes what streams emit into the output session. Every emit is applied whole
 * (a batch's rows, then its state changes) before a checkpoint may run, so a
 * checkpoint always falls between two emits and state never claims rows that
 * are not in the same or an earlier committed checkpoint.
 */
export class EmitWriter {
  readonly warnings: Array<{ code: string; message: string }> = [];
  readonly skipped: Array<{ stream: StreamName; reason: string }> = [];
  readonly failed: Array<{ stream: StreamName; code: string; message: string }> = [];
  readonly completeness: CompletenessFigure[] = [];

  constructor(
    private readonly output: OutputSession,
    private readonly policy: CheckpointPolicy,
    private readonly tracker: ProgressTracker,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  async write(emit: Emit, names: readonly StreamName[]): Promise<void> {
    switch (emit.kind) {
      case 'row':
        await this.output.writeRow(emit.table, emit.record, emit.deleted ? { deleted: true } : undefined);
        this.#staged(1, emit.changes);
        break;
      case 'batch':
        for (const row of emit.rows) {
          await this.output.writeRow(row.table, row.record, row.deleted ? { deleted: true } : undefined);
        }
        this.#staged(emit.rows.length, emit.changes);
        break;
      case 'state':
        this.#staged(0, emit.changes);
        break;
      case 'warning':
        this.warnings.push({ code: emit.code, message: emit.message });
        if (emit.code === STREAM_SKIPPED) this.skipped.push({ stream: names[0] as StreamName, reason: emit.message });
        return;
      case 'checkpoint':
        await this.checkpointIfDirty();
        return;
      case 'mark':
        // A checkpoint that is due does more than a mark; otherwise mark what is not committed yet.
        if (this.policy.due(this.clock.now())) await this.checkpoint();
        else if (this.policy.dirty) await this.output.mark();
        return;
      case 'completeness':
        this.completeness.push(emit.figure);
        // Something missing for no known reason is said where every warning is.
        if (emit.figure.unexplained > 0) {
          this.warnings.push({ code: INCOMPLETE, message: incompleteMessage(emit.figure) });
        }
        return;
    }
    if (this.policy.due(this.clock.now())) await this.checkpoint();
  }

  #staged(rows: number, changes: StateChange[] | undefined): void {
    const staged = changes !== undefined && changes.length > 0;
    if (staged) this.output.stage(changes);
    this.policy.wrote(rows, staged);
    this.tracker.rows(rows);
  }

  async checkpoint(): Promise<void> {
    await this.output.checkpoint();
    this.policy.checkpointed(this.clock.now());
  }

  async checkpointIfDirty(): Promise<void> {
    if (this.policy.dirty) await this.checkpoint();
  }

  /**
   * Records a stream that failed while the run goes on: an entry and a STREAM_FAILED warning
   * per name it served, and no completeness figure for them (it did not finish).
   */
  failedStream(names: readonly StreamName[], failure: StreamFailure): void {
    for (const stream of names) {
      this.failed.push({ stream, code: failure.code, message: failure.message });
      this.warnings.push(streamFailedWarning(stream, failure));
    }
    const unfinished = new Set<string>(names);
    const kept = this.completeness.filter((figure) => !unfinished.has(figure.stream));
    this.completeness.splice(0, this.completeness.length, ...kept);
  }

  /** Commits what is complete before an error ends the run; a failure here is logged, the first error wins. */
  async checkpointQuietly(log: Logger): Promise<void> {
    try {
      await this.checkpointIfDirty();
    } catch (error) {
      log.error({ event: 'checkpoint.failed', err: error }, 'could not commit the work done before the failure');
    }
  }
}
