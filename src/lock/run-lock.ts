/**
 * A run's hold on its state: taken before the state is read for writing, given
 * back when the run ends. Two kinds share this shape: a lock file beside a local
 * state file (local-lock.ts) and a lock object beside a state in object storage
 * (s3-lock.ts).
 */
export interface RunLock {
  /** Where the lock lives, for messages: a path or an s3:// URL. */
  readonly where: string;
  /** True once this run has seen another run take the lock over (it was paused past the lease). */
  readonly lost: boolean;
  /**
   * Proves the lock is still ours right now (the S3 lock refreshes its lease with
   * a conditional write). Throws StateConflictError when it is not; the state is
   * then never written by this run again.
   */
  confirm(): Promise<void>;
  /** Gives the lock back; only ever removes a lock this acquisition wrote. Idempotent. */
  release(): Promise<void>;
}
