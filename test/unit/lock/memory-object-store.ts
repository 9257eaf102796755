import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Clock } from '../../../src/clock.js';
import type {
  DownloadedObject,
  ObjectStore,
  StoredObject,
  WriteCondition,
} from '../../../src/state/remote/object-store.js';

/** An in-memory ObjectStore with S3's conditional-write rules, on the caller's clock; it counts the bytes it moves. */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, StoredObject>();
  /** Bytes of object bodies sent to it and read from it. */
  readonly moved = { up: 0, down: 0, requests: 0 };
  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  describe(key: string): string {
    return `s3://memory/${key}`;
  }

  async get(key: string): Promise<StoredObject | null> {
    this.moved.requests += 1;
    const object = this.objects.get(key);
    if (object) this.moved.down += object.body.length;
    return object ? { ...object, body: Buffer.from(object.body) } : null;
  }

  async download(
    key: string,
    path: string,
    options: { ifNoneMatch?: string } = {},
  ): Promise<DownloadedObject | 'unchanged' | null> {
    this.moved.requests += 1;
    const object = this.objects.get(key);
    if (!object) return null;
    if (options.ifNoneMatch === object.etag) return 'unchanged';
    this.moved.down += object.body.length;
    writeFileSync(path, object.body, { mode: 0o600 });
    return { etag: object.etag, bytes: object.body.length };
  }

  /** Writes without a condition, as another party would; returns the ETag. */
  write(key: string, body: string | Buffer, lastModified = new Date(this.clock.now())): string {
    const bytes = Buffer.from(body);
    const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    this.objects.set(key, { body: bytes, etag, lastModified });
    return etag;
  }

  async put(key: string, body: Buffer, condition: WriteCondition): Promise<string | null> {
    this.moved.requests += 1;
    this.moved.up += body.length;
    const current = this.objects.get(key);
    if ('ifNoneMatch' in condition && current) return null;
    if ('ifMatch' in condition && current?.etag !== condition.ifMatch) return null;
    return this.write(key, body);
  }

  async upload(key: string, path: string): Promise<void> {
    const body = readFileSync(path);
    this.moved.requests += 1;
    this.moved.up += body.length;
    this.write(key, body);
  }

  async delete(key: string, condition?: { ifMatch: string }): Promise<boolean> {
    this.moved.requests += 1;
    if (condition && this.objects.get(key)?.etag !== condition.ifMatch) return false;
    this.objects.delete(key);
    return true;
  }

  close(): void {}
}
