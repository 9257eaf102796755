import { StateConflictError, StateUploadNotRunError } from '../../errors.js';
import type { Logger } from '../../log.js';

export interface StateUploaderOptions {
  /** Sends what is committed now (StateReplica.push: the rows changed since the last push, or a new base). */
  push: () => Promise<void>;
  /** Proves the run still holds the state lock; throws StateConflictError when it does not. */
  confirmLock: () => Promise<void>;
  logger: Logger;
}

/**
 * Uploads the state after commits without holding the sync up: one upload at a
 * time, and a commit made while one runs asks for one more after it (so many
 * commits during a slow upload cost one more upload, not many).
 *
 * Each upload sends the state as of one moment between two transactions (the
 * rows changed since the last upload, read in one synchronous step, or a whole
 * copy), so what object storage holds is always a consistent database whose
 * every committed checkpoint names files that were durable before that commit
 * (state never ahead of output). The lock is confirmed before each. A conflict (another
 * run wrote the state, or took the lock over) is final: it is kept and thrown
 * by every later call, so the run stops at its next checkpoint. Other failures
 * (an outage) are logged and retried by the next request; flush() reports them.
 */
export class StateUploader {
  private running: Promise<void> | undefined;
  private wanted = false;
  private started = 0;
  private succeeded = 0;
  private conflict: unknown;
  private lastError: unknown;

  constructor(private readonly o: StateUploaderOptions) {}

  /** A commit happened: upload soon. Throws a conflict seen earlier. */
  request(): void {
    if (this.conflict !== undefined) throw this.conflict;
    this.wanted = true;
    this.kick();
  }

  /** Uploads what is committed now and waits for it; throws when that upload failed. */
  async flush(): Promise<void> {
    if (this.conflict !== undefined) throw this.conflict;
    // The first upload that starts after this call covers everything committed before it.
    const target = this.started + 1;
    this.wanted = true;
    this.kick();
    while (this.running) {
      await this.running;
      if (this.conflict !== undefined) throw this.conflict;
      if (this.succeeded >= target) return;
      if (this.started >= target && !this.wanted) break;
    }
    if (this.succeeded >= target) return;
    throw this.lastError ?? new StateUploadNotRunError('state upload did not run');
  }

  /** Waits for an upload under way (before the database is closed). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running || this.conflict !== undefined) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop(): Promise<void> {
    while (this.wanted && this.conflict === undefined) {
      this.wanted = false;
      const attempt = ++this.started;
      try {
        await this.uploadOnce();
        this.succeeded = attempt;
      } catch (error) {
        if (error instanceof StateConflictError) {
          this.conflict = error;
          this.o.logger.error({ event: 'state.conflict', err: error }, error.message);
        } else {
          this.lastError = error;
          this.o.logger.warn({ event: 'state.upload_failed', err: error }, 'could not upload the state; will retry');
        }
      }
    }
  }

  private async uploadOnce(): Promise<void> {
    await this.o.confirmLock();
    await this.o.push();
  }
}
