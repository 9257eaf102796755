import { createHash } from 'node:crypto';
import type { Clock } from '../../../src/clock.js';
import type { ObjectStore, StoredObject, WriteCondition } from '../../../src/state/object-store.js';

/** An in-memory ObjectStore with S3's conditional-write rules, on the caller's clock. */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, StoredObject>();
  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  describe(key: string): string {
    return `s3://memory/${key}`;
  }

  async get(key: string): Promise<StoredObject | null> {
    const object = this.objects.get(key);
    return object ? { ...object, body: Buffer.from(object.body) } : null;
  }

  /** Writes without a condition, as another party would; returns the ETag. */
  write(key: string, body: string | Buffer, lastModified = new Date(this.clock.now())): string {
    const bytes = Buffer.from(body);
    const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    this.objects.set(key, { body: bytes, etag, lastModified });
    return etag;
  }

  async put(key: string, body: Buffer, condition: WriteCondition): Promise<string | null> {
    const current = this.objects.get(key);
    if ('ifNoneMatch' in condition && current) return null;
    if ('ifMatch' in condition && current?.etag !== condition.ifMatch) return null;
    return this.write(key, body);
  }

  async delete(key: string, condition: { ifMatch: string }): Promise<boolean> {
    if (this.objects.get(key)?.etag !== condition.ifMatch) return false;
    this.objects.delete(key);
    return true;
  }

  close(): void {}
}
