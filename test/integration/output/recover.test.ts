import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutputSession } from '../../../src/commit/output-session.js';
import { recoverPendingCheckpoints } from '../../../src/commit/recover.js';
import { silentLogger } from '../../../src/log.js';
import { createRunStore } from '../../../src/state/run-store.js';
import { sampleRecord } from './support/sample-records.js';
import { SessionFixture, stopAt } from './support/session-fixture.js';

let fx: SessionFixture;
beforeEach(() => {
  fx = new SessionFixture();
});
afterEach(() => fx.close());

const recover = () => recoverPendingCheckpoints(fx.db, fx.sink, silentLogger(), { clock: fx.clock });

/** Writes two tables, stages a change, and runs a checkpoint that stops at `label`. */
async function interruptedCheckpoint(label: string, n = 1): Promise<OutputSession> {
  const session = await fx.open({ faultPoint: stopAt(label, n) });
  await session.writeRow('tags', sampleRecord('tags', 1));
  await session.writeRow('users', sampleRecord('users', 1));
  session.stage([{ scope: 'fp', key: 'tags', value: 'v1' }]);
  await expect(session.checkpoint()).rejects.toThrow(`stopped at ${label}`);
  return session;
}

/** The next run: recover, then finish with nothing new; returns its manifest. */
async function nextRun() {
  const result = await recover();
  const session = await fx.open();
  await session.finish();
  return { result, manifest: fx.manifest(session.runId) };
}

describe('recoverPendingCheckpoints', () => {
  it('commits a pending checkpoint whose files are all in the sink (crash before the commit transaction)', async () => {
    const crashed = await interruptedCheckpoint('before-commit');
    expect(fx.kv('fp')).toEqual({});
    const { result, manifest } = await nextRun();
    expect(result).toEqual({ committed: 1, superseded: 0 });
    expect(fx.kv('fp')).toEqual({ tags: 'v1' });
    expect(manifest.files.map((f) => [f.table, f.run_id])).toEqual([
      ['tags', crashed.runId],
      ['users', crashed.runId],
    ]);
    expect(createRunStore(fx.db).get(crashed.runId)?.status).toBe('crashed');
  });

  it('uploads a missing file from its intact spool copy, then commits', async () => {
    await interruptedCheckpoint('pending-recorded');
    expect(await fx.keys()).toEqual([]);
    const { result, manifest } = await nextRun();
    expect(result).toEqual({ committed: 1, superseded: 0 });
    expect(manifest.files).toHaveLength(2);
    expect(fx.kv('fp')).toEqual({ tags: 'v1' });
  });

  it('supersedes a checkpoint with a file neither in the sink nor in the spool, deleting what was uploaded', async () => {
    await interruptedCheckpoint('before-commit');
    const [users] = await fx.keys('users/');
    await fx.sink.delete(users!);
    rmSync(fx.spool, { recursive: true, force: true });
    expect(await fx.keys()).toHaveLength(1);
    const { result, manifest } = await nextRun();
    expect(result).toEqual({ committed: 0, superseded: 1 });
    expect(fx.kv('fp')).toEqual({});
    expect(manifest.files).toEqual([]);
    expect(await fx.keys()).toEqual([`_manifests/${manifest.run_id}.json`]);
  });

  it('supersedes when a stored file does not match its recorded sha256', async () => {
    await interruptedCheckpoint('before-commit');
    rmSync(fx.spool, { recursive: true, force: true });
    const [key] = await fx.keys('tags/');
    await fx.sink.putBytes(key!, 'x'.repeat(10), 'application/gzip');
    const { result } = await nextRun();
    expect(result).toEqual({ committed: 0, superseded: 1 });
    expect(await fx.keys('tags/')).toEqual([]);
  });

  it('confirms a manifest that reached the sink before the crash: its files are not listed again', async () => {
    const session = await fx.open({ faultPoint: stopAt('manifest-written') });
    await session.writeRow('tags', sampleRecord('tags', 1));
    await expect(session.finish()).rejects.toThrow('stopped at manifest-written');
    expect(fx.manifest(session.runId).files).toHaveLength(1);
    const { manifest } = await nextRun();
    expect(manifest.files).toEqual([]);
    expect(createRunStore(fx.db).get(session.runId)).toMatchObject({ status: 'finished', manifest_state: 'written' });
  });

  it('releases files claimed by a manifest that never reached the sink: the next manifest lists them once', async () => {
    const session = await fx.open({ faultPoint: stopAt('manifest-claimed') });
    await session.writeRow('tags', sampleRecord('tags', 1));
    await expect(session.finish()).rejects.toThrow('stopped at manifest-claimed');
    const { manifest } = await nextRun();
    expect(manifest.files.map((f) => f.run_id)).toEqual([session.runId]);
    const third = await fx.open();
    await third.finish();
    expect(fx.manifest(third.runId).files).toEqual([]);
  });

  it('releases the claim when the manifest upload fails, and the run is marked failed', async () => {
    const session = await fx.open({
      sink: {
        ...fx.sink,
        putBytes: async () => {
          throw new Error('sink down');
        },
      },
    });
    await session.writeRow('tags', sampleRecord('tags', 1));
    await expect(session.finish()).rejects.toThrow('sink down');
    expect(createRunStore(fx.db).get(session.runId)).toMatchObject({ status: 'failed', manifest_state: null });
    const { manifest } = await nextRun();
    expect(manifest.files).toHaveLength(1);
  });

  it('retries deleting superseded files that the sink refused to delete', async () => {
    await interruptedCheckpoint('before-commit');
    const [users] = await fx.keys('users/');
    await fx.sink.delete(users!);
    rmSync(fx.spool, { recursive: true, force: true });
    const real = fx.sink;
    fx.sink = {
      ...real,
      delete: async () => {
        throw new Error('no delete now');
      },
    };
    expect(await recover()).toEqual({ committed: 0, superseded: 1 });
    fx.sink = real;
    expect(await fx.keys()).toHaveLength(1);
    await recover();
    expect(await fx.keys()).toEqual([]);
  });
});
