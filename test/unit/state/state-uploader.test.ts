import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateConflictError, StateUploadNotRunError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import type { StateDb } from '../../../src/state/database.js';
import type { RemoteStateFile } from '../../../src/state/remote-state-file.js';
import { StateUploader } from '../../../src/state/state-uploader.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** An uploader over a fake database (backup is a no-op) and a remote that records its uploads. */
async function uploaderWith(confirmLock: () => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'state-uploader-'));
  dirs.push(dir);
  const uploads: string[] = [];
  const db = { db: { backup: async () => undefined } } as unknown as StateDb;
  const remote = {
    url: 's3://bucket/state.db',
    upload: async (path: string) => {
      uploads.push(path);
    },
  } as unknown as RemoteStateFile;
  const uploader = new StateUploader({
    db,
    remote,
    snapshotPath: join(dir, 'snapshot.db'),
    confirmLock,
    logger: silentLogger(),
  });
  return { uploader, uploads };
}

describe('StateUploader.flush', () => {
  it('resolves once an upload covering the call has succeeded', async () => {
    const { uploader, uploads } = await uploaderWith(async () => undefined);
    await uploader.flush();
    expect(uploads).toHaveLength(1);
  });

  it('keeps a conflict and throws it on every later call', async () => {
    const conflict = new StateConflictError('taken over');
    const { uploader, uploads } = await uploaderWith(() => Promise.reject(conflict));
    await expect(uploader.flush()).rejects.toBe(conflict);
    expect(() => uploader.request()).toThrow(conflict);
    expect(uploads).toEqual([]);
  });

  it('a failure that threw nothing ends in a typed error with a stable code, not a plain Error', async () => {
    const { uploader, uploads } = await uploaderWith(() => Promise.reject(undefined));
    const error = await uploader.flush().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateUploadNotRunError);
    expect(error).toMatchObject({ code: 'STATE_UPLOAD_NOT_RUN', message: 'state upload did not run', exitCode: 1 });
    expect(uploads).toEqual([]);
  });
});
