/** One object as read: its bytes, its ETag and when the store last wrote it (the store's clock). */
export interface StoredObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
}

/** A write that only happens when the object is as the writer last saw it. */
export type WriteCondition = { ifMatch: string } | { ifNoneMatch: '*' };

/** An object copied to a file: its ETag and size. */
export interface DownloadedObject {
  etag: string;
  bytes: number;
}

/**
 * The few object operations the S3 state and its lock need, each one
 * conditional where a race could lose a write. S3 (and compatible stores that
 * honour conditional writes) answer a failed condition with 412; that comes back
 * here as `null` / `false`, every other failure as an error.
 */
export interface ObjectStore {
  /** `s3://bucket/key`, for messages. */
  describe(key: string): string;
  /** A small object, read whole (a lock, the state's head). */
  get(key: string): Promise<StoredObject | null>;
  /**
   * Copies an object into `path` as it streams in (mode 0600): the state's
   * base can be hundreds of MB and is never held in memory. With `ifNoneMatch`,
   * `unchanged` when the object still has that ETag (nothing is copied). null
   * when there is no such object.
   */
  download(
    key: string,
    path: string,
    options?: { ifNoneMatch?: string },
  ): Promise<DownloadedObject | 'unchanged' | null>;
  /** Writes and returns the new ETag, or null when the condition failed. */
  put(key: string, body: Buffer, condition: WriteCondition): Promise<string | null>;
  /** Writes the file at `path`, streamed, without a condition: for objects whose name is never reused. */
  upload(key: string, path: string): Promise<void>;
  /** Deletes when the ETag still matches (false when the condition failed); without one, whatever it holds. */
  delete(key: string, condition?: { ifMatch: string }): Promise<boolean>;
  close(): void;
}
