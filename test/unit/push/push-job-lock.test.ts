import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { LockHeldError } from '../../../src/errors.js';
import { acquireLocalLock } from '../../../src/lock/local-lock.js';
import { silentLogger } from '../../../src/log.js';
import { withPushDeps } from '../../../src/push/push-job.js';

describe('withPushDeps with lockAs', () => {
  it('refuses to run while another run holds the state lock, and frees the lock after its own run', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'hs-push-lock-')), 'state.sqlite');
    const config = parseConfig(
      { source: { base_url: 'http://127.0.0.1:9/v1', token: 'sandbox-admin' }, state: { path: statePath } },
      'test',
      {},
    );
    const sync = acquireLocalLock(statePath, 'sync');
    let ran = false;
    await expect(
      withPushDeps(config, { logger: silentLogger(), lockAs: 'apply' }, async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(LockHeldError);
    expect(ran).toBe(false);
    sync.release();
    await withPushDeps(config, { logger: silentLogger(), lockAs: 'apply' }, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    // Released: a sync can take the lock again.
    acquireLocalLock(statePath, 'sync').release();
  });
});
