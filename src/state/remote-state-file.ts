import { readFile, writeFile } from 'node:fs/promises';
import { StateConflictError } from '../errors.js';
import type { ObjectStore } from './object-store.js';

/**
 * The state database kept as one object, copied down at start and up after
 * commits. Every upload is conditional on the ETag this run last saw (the
 * download's, or its own previous upload's; `If-None-Match: *` while the object
 * does not exist yet), so a run can never overwrite a state that another run
 * wrote after it: that upload fails with StateConflictError instead.
 */
export class RemoteStateFile {
  private etag: string | undefined;

  constructor(
    private readonly store: ObjectStore,
    readonly key: string,
  ) {}

  get url(): string {
    return this.store.describe(this.key);
  }

  /** Copies the object to `localPath` (mode 0600); false when there is none yet (a fresh state). */
  async download(localPath: string): Promise<boolean> {
    const object = await this.store.get(this.key);
    if (!object) {
      this.etag = undefined;
      return false;
    }
    await writeFile(localPath, object.body, { mode: 0o600 });
    this.etag = object.etag;
    return true;
  }

  async upload(localPath: string): Promise<void> {
    const body = await readFile(localPath);
    const condition = this.etag === undefined ? ({ ifNoneMatch: '*' } as const) : { ifMatch: this.etag };
    const etag = await this.store.put(this.key, body, condition);
    if (etag === null) {
      throw new StateConflictError(
        `the state ${this.url} was written by another run since this run ${this.etag === undefined ? 'found it absent' : 'read it'}; this run stops without overwriting it`,
      );
    }
    this.etag = etag;
  }
}
