import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markLogPath, readMarkLog } from '../../../src/commit/mark-log.js';
import type { OutputSession } from '../../../src/commit/output-session.js';
import { recoverPendingCheckpoints } from '../../../src/commit/recover.js';
import { silentLogger } from '../../../src/log.js';
import { sampleRecord } from './support/sample-records.js';
import { SessionFixture } from './support/session-fixture.js';

let fx: SessionFixture;
beforeEach(() => {
  fx = new SessionFixture();
});
afterEach(() => fx.close());

const recover = () =>
  recoverPendingCheckpoints(fx.db, fx.sink, silentLogger(), { clock: fx.clock, spoolDir: fx.spool });

/** Rows of every committed data file of `table` in the sink. */
async function committedRows(table: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const key of await fx.keys(`${table}/`)) {
    const text = gunzipSync(readFileSync(`${fx.out}/${key}`)).toString('utf8');
    rows.push(
      ...text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
  }
  return rows;
}

/**
 * A run that writes tags 1–3 and marks, then 4–5 and a second mark (a bytes
 * value among its changes), then tag 6 unmarked, and stops there as a kill
 * would: no checkpoint, files left open in the spool.
 */
async function markedThenStopped(): Promise<OutputSession> {
  // Two rows a file: the marks see closed files and an open one.
  const session = await fx.open({ maxRecordsPerFile: 2 });
  for (const i of [1, 2, 3]) await session.writeRow('tags', sampleRecord('tags', i));
  session.stage([{ scope: 'pos', key: 'next', value: '4' }]);
  await session.mark();
  for (const i of [4, 5]) await session.writeRow('tags', sampleRecord('tags', i));
  session.stage([
    { scope: 'pos', key: 'next', value: '6' },
    { scope: 'hashes', key: 'c1', value: new Uint8Array([0, 1, 254, 255]) },
  ]);
  await session.mark();
  await session.writeRow('tags', sampleRecord('tags', 6));
  session.stage([{ scope: 'pos', key: 'next', value: '7' }]);
  return session;
}

describe('marks of the spool, recovered by the next run', () => {
  it('commits the marked rows and changes, and nothing written after the last mark', async () => {
    await markedThenStopped();
    expect(await readMarkLog(markLogPath(fx.spool))).toHaveLength(2);
    expect(await recover()).toEqual({ committed: 1, superseded: 0 });
    expect(fx.kv('pos')).toEqual({ next: '6' });
    const bytes = fx.db.db.prepare("SELECT value FROM kv_state WHERE scope = 'hashes' AND key = 'c1'").pluck().get();
    expect(new Uint8Array(bytes as Buffer)).toEqual(new Uint8Array([0, 1, 254, 255]));
    const rows = await committedRows('tags');
    expect(rows.map((r) => r.name).sort()).toEqual([1, 2, 3, 4, 5].map((i) => sampleRecord('tags', i).name).sort());
    // The next run's manifest lists them once.
    const next = await fx.open();
    await next.finish();
    expect(
      fx
        .manifest(next.runId)
        .files.filter((f) => f.table === 'tags')
        .reduce((n, f) => n + f.rows, 0),
    ).toBe(5);
  });

  it('a log line cut short by the kill: the mark before it holds', async () => {
    await markedThenStopped();
    const log = markLogPath(fx.spool);
    const lines = readFileSync(log, 'utf8').split('\n');
    writeFileSync(log, `${lines[0]}\n${lines[1]!.slice(0, 40)}`);
    expect(await recover()).toEqual({ committed: 1, superseded: 0 });
    expect(fx.kv('pos')).toEqual({ next: '4' });
    expect(await committedRows('tags')).toHaveLength(3);
  });

  it('a file shorter than its mark gives the marks up: nothing committed, the work is fetched again', async () => {
    await markedThenStopped();
    const [entry] = (await readMarkLog(markLogPath(fx.spool))).slice(-1);
    const open = entry!.files.find((f) => f.state === 'open')!;
    truncateSync(open.path, open.bytes - 1);
    expect(await recover()).toEqual({ committed: 0, superseded: 0 });
    expect(fx.kv('pos')).toEqual({});
    expect(await fx.keys('tags/')).toEqual([]);
  });

  it('a closed file that changed gives the marks up', async () => {
    await markedThenStopped();
    const [entry] = (await readMarkLog(markLogPath(fx.spool))).slice(-1);
    const closed = entry!.files.find((f) => f.state === 'closed')!;
    appendFileSync(closed.path, 'x');
    expect(await recover()).toEqual({ committed: 0, superseded: 0 });
    expect(fx.kv('pos')).toEqual({});
  });

  it('marks made on another copy of the state (one with a newer checkpoint) are given up', async () => {
    await markedThenStopped();
    const log = markLogPath(fx.spool);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const newer = lines.map((l) => {
      const entry = JSON.parse(l) as { after_checkpoint: number };
      return JSON.stringify({ ...entry, after_checkpoint: entry.after_checkpoint + 1 });
    });
    writeFileSync(log, `${newer.join('\n')}\n`);
    expect(await recover()).toEqual({ committed: 0, superseded: 0 });
    expect(fx.kv('pos')).toEqual({});
  });

  it('marks whose files a checkpoint recorded already are stale: recovered once only', async () => {
    await markedThenStopped();
    const log = readFileSync(markLogPath(fx.spool));
    expect(await recover()).toEqual({ committed: 1, superseded: 0 });
    // As if recovery had been killed after recording them, before the log went.
    writeFileSync(markLogPath(fx.spool), log);
    expect(await recover()).toEqual({ committed: 0, superseded: 0 });
    expect(await committedRows('tags')).toHaveLength(5);
  });

  it('a checkpoint takes the marked work over: the log is gone, and a later kill recovers nothing twice', async () => {
    const session = await markedThenStopped();
    await session.checkpoint();
    expect(await readMarkLog(markLogPath(fx.spool))).toEqual([]);
    expect(fx.kv('pos')).toEqual({ next: '7' });
    expect(await recover()).toEqual({ committed: 0, superseded: 0 });
    expect(await committedRows('tags')).toHaveLength(6);
  });

  it('an aborted run leaves no marks', async () => {
    const session = await markedThenStopped();
    await session.abort();
    expect(await readMarkLog(markLogPath(fx.spool))).toEqual([]);
  });

  it('Parquet output is not marked', async () => {
    const session = await fx.open({ format: 'parquet' });
    await session.writeRow('tags', sampleRecord('tags', 1));
    await session.mark();
    expect(await readMarkLog(markLogPath(fx.spool))).toEqual([]);
    await session.abort();
  });
});
