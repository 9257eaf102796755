/**
 * When the runner commits between two emits, whichever comes first: `checkpoint.every_rows`
 * and `every_seconds`, checked where the config enters. @default 5 000 rows or 15 s
 */
export interface CheckpointEvery {
  rows?: number;
  ms?: number;
}

export const DEFAULT_CHECKPOINT_ROWS = 5_000;
export const DEFAULT_CHECKPOINT_MS = 15_000;

/**
 * Counts work written since the last checkpoint. A checkpoint closes every open
 * file and commits it with its staged state, so a SIGKILL loses at most this
 * much; more often means more, smaller files.
 */
export class CheckpointPolicy {
  readonly #rows: number;
  readonly #ms: number;
  #pendingRows = 0;
  #pendingState = false;
  #since: number;

  constructor(every: CheckpointEvery | undefined, nowMs: number) {
    this.#rows = every?.rows ?? DEFAULT_CHECKPOINT_ROWS;
    this.#ms = every?.ms ?? DEFAULT_CHECKPOINT_MS;
    this.#since = nowMs;
  }

  wrote(rows: number, stagedState: boolean): void {
    this.#pendingRows += rows;
    if (stagedState) this.#pendingState = true;
  }

  /** Anything written or staged since the last checkpoint. */
  get dirty(): boolean {
    return this.#pendingRows > 0 || this.#pendingState;
  }

  due(nowMs: number): boolean {
    return this.dirty && (this.#pendingRows >= this.#rows || nowMs - this.#since >= this.#ms);
  }

  checkpointed(nowMs: number): void {
    this.#pendingRows = 0;
    this.#pendingState = false;
    this.#since = nowMs;
  }
}
