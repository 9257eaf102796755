/** One object as read: its bytes, its ETag and when the store last wrote it (the store's clock). */
export interface StoredObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
}

/** A write that only happens when the object is as the writer last saw it. */
export type WriteCondition = { ifMatch: string } | { ifNoneMatch: '*' };

/**
 * The few object operations the S3 state and its lock need, each one
 * conditional where a race could lose a write. S3 (and compatible stores that
 * honour conditional writes) answer a failed condition with 412; that comes back
 * here as `null` / `false`, every other failure as an error.
 */
export interface ObjectStore {
  /** `s3://bucket/key`, for messages. */
  describe(key: string): string;
  get(key: string): Promise<StoredObject | null>;
  /** Writes and returns the new ETag, or null when the condition failed. */
  put(key: string, body: Buffer, condition: WriteCondition): Promise<string | null>;
  /** Deletes when the ETag still matches; false when the condition failed. */
  delete(key: string, condition: { ifMatch: string }): Promise<boolean>;
  close(): void;
}
