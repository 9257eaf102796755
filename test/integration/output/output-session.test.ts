import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSIONS } from '../../../src/output/rows/schema-version.js';
import { TABLE_NAMES, type TableName } from '../../../src/output/tables.js';
import { createRunStore } from '../../../src/state/run-store.js';
import { readJsonlGz } from './support/read-jsonl-gz.js';
import { sampleRecord } from './support/sample-records.js';
import { assertValidRow, loadSchemaValidators } from './support/schema-validator.js';
import { SessionFixture } from './support/session-fixture.js';

let fx: SessionFixture;
beforeEach(() => {
  fx = new SessionFixture();
});
afterEach(() => fx.close());

const validators = loadSchemaValidators();

describe('output session (local sink)', () => {
  it('writes every table, rejected rows and tombstones, commits state, and writes the manifest last', async () => {
    const session = await fx.open({ maxRecordsPerFile: 3 });
    for (const table of TABLE_NAMES) for (let n = 0; n < 4; n++) await session.writeRow(table, sampleRecord(table, n));
    await session.writeRow('conversations', { id: 'gone' }, { deleted: true });
    await session.writeRow('tags', { name: 'no id' });
    await session.writeRow('tags', { id: 't-x', name: 'odd', color: 7, since: '2020' });
    session.stage([{ scope: 'fp:tags', key: 't-x', value: 'h1' }]);
    await session.checkpoint();
    expect(fx.kv('fp:tags')).toEqual({ 't-x': 'h1' });
    await session.writeRow('holidays', sampleRecord('holidays', 9));
    session.stage([{ scope: 'fp:tags', key: 't-x', value: null }]);
    const { manifestKey, files } = await session.finish({ streams: 'ok' });

    expect(manifestKey).toBe(`_manifests/${session.runId}.json`);
    const manifest = fx.manifest(session.runId);
    expect(manifest).toMatchObject({
      manifest_version: 1,
      run_id: session.runId,
      account: 'acme',
      summary: { streams: 'ok' },
    });
    expect(files).toBe(manifest.files.length + manifest.rejected_files.length);
    expect(manifest.tables.conversations).toBe(5);
    expect(manifest.tables.tags).toBe(5);
    expect(manifest.tables.holidays).toBe(5);
    expect(manifest.rejected).toMatchObject({ tags: 1, conversations: 0 });
    expect(fx.kv('fp:tags')).toEqual({});

    // Every listed file exists with the recorded size and sha256; every row validates.
    const seqs = new Set<string>();
    for (const f of [...manifest.files, ...manifest.rejected_files]) {
      const data = readFileSync(join(fx.out, f.key));
      expect(data.length).toBe(f.bytes);
      expect(createHash('sha256').update(data).digest('hex')).toBe(f.sha256);
      expect(f.schema_version).toBe(SCHEMA_VERSIONS[f.table as TableName]);
      seqs.add(f.key.slice(-13));
      const rows = readJsonlGz(join(fx.out, f.key));
      expect(rows).toHaveLength(f.rows);
      if (f.key.startsWith('_rejected/')) {
        expect(rows[0]).toMatchObject({
          _run_id: session.runId,
          _account: 'acme',
          reason: 'missing primary key id',
          raw: { name: 'no id' },
        });
      } else {
        expect(f.key).toMatch(new RegExp(`^${f.table}/dt=2026-11-22/${session.runId}-\\d{4}\\.jsonl\\.gz$`));
        for (const row of rows) assertValidRow(validators, f.table as TableName, row);
        expect(new Set(rows.map((r) => r._account)), f.key).toEqual(new Set(['acme']));
      }
    }
    expect(seqs.size).toBe(manifest.files.length + manifest.rejected_files.length);
    expect(await fx.keys()).toEqual(
      [...manifest.files, ...manifest.rejected_files]
        .map((f) => f.key)
        .concat(manifestKey)
        .sort(),
    );

    const convRows = manifest.files
      .filter((f) => f.table === 'conversations')
      .flatMap((f) => readJsonlGz(join(fx.out, f.key)));
    expect(convRows.find((r) => r.id === 'gone')).toMatchObject({ _deleted: true, subject: null, _account: 'acme' });
    const stats = session.stats();
    expect(stats.rows.conversations).toBe(5);
    expect(stats.tombstones.conversations).toBe(1);
    expect(stats.rejected.tags).toBe(1);
    expect(stats.extraFields.tags).toBe(2);
    expect(stats.files).toBe(files);
    expect(readdirSync(fx.spool)).toEqual([]);
    expect(createRunStore(fx.db).get(session.runId)).toMatchObject({ status: 'finished', manifest_state: 'written' });
  });

  it('applies changes that wait for no file at the checkpoint, and an empty run still gets a manifest', async () => {
    const session = await fx.open();
    session.stage([{ scope: 'pos', key: 'reports', value: '2026-11-21' }]);
    await session.checkpoint();
    expect(fx.kv('pos')).toEqual({ reports: '2026-11-21' });
    await session.finish();
    expect(fx.manifest(session.runId)).toMatchObject({ files: [], rejected_files: [] });
  });

  it('does not advance state when an upload fails; abort removes what was uploaded', async () => {
    let puts = 0;
    const failing = {
      ...fx.sink,
      put: async (key: string, path: string, meta: Parameters<typeof fx.sink.put>[2]) => {
        if (++puts === 2) throw new Error('sink down');
        return fx.sink.put(key, path, meta);
      },
    };
    const session = await fx.open({ sink: failing });
    await session.writeRow('tags', sampleRecord('tags', 1));
    await session.writeRow('users', sampleRecord('users', 1));
    session.stage([{ scope: 'fp', key: 'k', value: 'v' }]);
    await expect(session.checkpoint()).rejects.toThrow('sink down');
    expect(fx.kv('fp')).toEqual({});
    expect(await fx.keys()).toHaveLength(1); // the first file made it
    // Nothing more may commit after a failed checkpoint: only abort is left.
    await expect(session.writeRow('tags', sampleRecord('tags', 3))).rejects.toThrow(/failed at a checkpoint/);
    await expect(session.checkpoint()).rejects.toThrow(/failed at a checkpoint/);
    await session.abort();
    expect(await fx.keys()).toEqual([]);
    expect(readdirSync(fx.spool)).toEqual([]);
    expect(createRunStore(fx.db).get(session.runId)?.status).toBe('aborted');
    await expect(session.writeRow('tags', sampleRecord('tags', 2))).rejects.toThrow(/aborted/);
  });

  it('abort keeps what was committed and drops open files and staged changes', async () => {
    const session = await fx.open();
    await session.writeRow('tags', sampleRecord('tags', 1));
    session.stage([{ scope: 'fp', key: 'a', value: '1' }]);
    await session.checkpoint();
    await session.writeRow('tags', sampleRecord('tags', 2));
    session.stage([{ scope: 'fp', key: 'b', value: '2' }]);
    await session.abort();
    expect(fx.kv('fp')).toEqual({ a: '1' });
    expect(await fx.keys()).toHaveLength(1);
    // The next run's manifest lists the aborted run's committed file.
    const next = await fx.open();
    await next.finish();
    expect(fx.manifest(next.runId).files.map((f) => f.run_id)).toEqual([session.runId]);
  });

  it('rejects unknown tables', async () => {
    const session = await fx.open();
    await expect(session.writeRow('nope' as TableName, { id: 'x' })).rejects.toThrow(/unknown output table/);
    await session.abort();
  });
});
