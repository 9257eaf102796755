import { describe, expect, it } from 'vitest';
import { StateConflictError, StateUploadNotRunError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { StateUploader } from '../../../src/state/remote/state-uploader.js';

/** An uploader whose pushes are recorded. */
async function uploaderWith(confirmLock: () => Promise<void>) {
  const uploads: number[] = [];
  const uploader = new StateUploader({
    push: async () => {
      uploads.push(uploads.length + 1);
    },
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
