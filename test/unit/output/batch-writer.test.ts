import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../src/output/batch-writer.js';
import { readJsonlGz } from '../../integration/output/support/read-jsonl-gz.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'batch-writer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writer(maxRecordsPerFile: number, maxBytesPerFile: number) {
  let n = 0;
  return new BatchWriter({
    table: 'tags',
    kind: 'data',
    maxRecordsPerFile,
    maxBytesPerFile,
    allocate: () => {
      n++;
      return { key: `tags/f-${n}.jsonl.gz`, path: join(dir, `f-${n}.jsonl.gz`) };
    },
  });
}

const line = (i: number) => JSON.stringify({ id: `t-${String(i).padStart(4, '0')}`, name: 'é'.repeat(5) });

describe('BatchWriter', () => {
  it('rotates at max_records_per_file and keeps every row, in order', async () => {
    const w = writer(4, 1e9);
    for (let i = 0; i < 10; i++) await w.write(line(i));
    const files = await w.takeClosed();
    expect(files.map((f) => f.rows)).toEqual([4, 4, 2]);
    const rows = files.flatMap((f) => readJsonlGz(f.path));
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => `t-${String(i).padStart(4, '0')}`));
    expect(files.map((f) => f.key)).toEqual(['tags/f-1.jsonl.gz', 'tags/f-2.jsonl.gz', 'tags/f-3.jsonl.gz']);
  });

  it('rotates before a row would pass max_bytes_per_file (uncompressed UTF-8 bytes)', async () => {
    const bytes = Buffer.byteLength(line(0)) + 1; // é is two bytes
    const w = writer(1000, bytes * 3);
    for (let i = 0; i < 7; i++) await w.write(line(i));
    const files = await w.takeClosed();
    expect(files.map((f) => f.rows)).toEqual([3, 3, 1]);
    for (const f of files) expect(f.uncompressedBytes).toBeLessThanOrEqual(bytes * 3);
  });

  it('reports the compressed size and sha256 of what is on disk', async () => {
    const w = writer(100, 1e9);
    for (let i = 0; i < 50; i++) await w.write(line(i));
    const [file] = await w.takeClosed();
    const data = readFileSync(file!.path);
    expect(file!.bytes).toBe(data.length);
    expect(file!.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(statSync(file!.path).mode & 0o777).toBe(0o600);
  });

  it('hands over nothing when nothing was written, and a new file after each take', async () => {
    const w = writer(100, 1e9);
    expect(await w.takeClosed()).toEqual([]);
    await w.write(line(1));
    expect((await w.takeClosed()).length).toBe(1);
    await w.write(line(2));
    const [second] = await w.takeClosed();
    expect(readJsonlGz(second!.path).map((r) => r.id)).toEqual(['t-0002']);
  });

  it('discard() removes open and closed spool files', async () => {
    const w = writer(2, 1e9);
    for (let i = 0; i < 5; i++) await w.write(line(i));
    await w.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses limits below 1', () => {
    expect(() => writer(0, 10)).toThrow(/from 1 and up/);
  });
});
