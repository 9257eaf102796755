import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SinkError } from '../../../src/errors.js';
import { createLocalSink } from '../../../src/output/sinks/local-sink.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-sink-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const k of it) out.push(k);
  return out.sort();
}

describe('local sink', () => {
  it('stores a file under its key and reports size and sha256', async () => {
    const sink = createLocalSink({ root: join(dir, 'out', 'prefix') });
    const src = join(dir, 'src.bin');
    writeFileSync(src, 'hello');
    const sha256 = createHash('sha256').update('hello').digest('hex');
    await sink.put('tags/dt=2026-01-01/r-0001.jsonl.gz', src, { sha256, bytes: 5, contentType: 'application/gzip' });
    expect(readFileSync(join(dir, 'out', 'prefix', 'tags', 'dt=2026-01-01', 'r-0001.jsonl.gz'), 'utf8')).toBe('hello');
    expect(await sink.head('tags/dt=2026-01-01/r-0001.jsonl.gz')).toEqual({ bytes: 5, sha256 });
    expect(await sink.head('tags/none')).toBeNull();
    expect((await buffer(await sink.read('tags/dt=2026-01-01/r-0001.jsonl.gz'))).toString('utf8')).toBe('hello');
    await expect(sink.read('tags/none')).rejects.toThrow('could not read tags/none');
  });

  it('lists keys by prefix, never temporary files, and deletes idempotently', async () => {
    const sink = createLocalSink({ root: dir });
    await sink.putBytes('_manifests/a.json', '{}', 'application/json');
    await sink.putBytes('tags/x.jsonl.gz', 'x', 'application/gzip');
    writeFileSync(join(dir, 'tags', 'y.jsonl.gz.tmp-0000'), 'half');
    expect(await collect(sink.list(''))).toEqual(['_manifests/a.json', 'tags/x.jsonl.gz']);
    expect(await collect(sink.list('tags/'))).toEqual(['tags/x.jsonl.gz']);
    await sink.delete('tags/x.jsonl.gz');
    await sink.delete('tags/x.jsonl.gz');
    expect(await collect(sink.list('tags/'))).toEqual([]);
  });

  it('leaves no file under the key when the copy is wrong or the process stops before the rename', async () => {
    const sink = createLocalSink({
      root: dir,
      faultPoint: () => {
        throw new Error('stopped');
      },
    });
    const src = join(dir, 'src.bin');
    writeFileSync(src, 'abc');
    await expect(sink.put('k.jsonl.gz', src, { sha256: 'x', bytes: 3, contentType: 'a' })).rejects.toBeInstanceOf(
      SinkError,
    );
    expect(await sink.head('k.jsonl.gz')).toBeNull();
    const plain = createLocalSink({ root: dir });
    await expect(plain.put('k.jsonl.gz', src, { sha256: 'x', bytes: 4, contentType: 'a' })).rejects.toThrow(
      /could not write/,
    );
    expect(await collect(plain.list('k'))).toEqual([]);
  });

  it('refuses keys that leave its directory', async () => {
    const sink = createLocalSink({ root: dir });
    await expect(sink.putBytes('../escape.json', '{}', 'application/json')).rejects.toBeInstanceOf(SinkError);
  });
});
