import { describe, expect, it } from 'vitest';
import { splitLines } from '../../../src/load/split-lines.js';

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function all(bytes: Buffer, size: number): Promise<string[][]> {
  const batches: string[][] = [];
  for await (const batch of splitLines(chunked(bytes, size))) batches.push(batch);
  return batches;
}

describe('splitLines', () => {
  const lines = ['{"a":"ünïcødé 😀"}', '{"b":"€"}', 'x'.repeat(300), '{"c":"日本語"}'];
  const text = `${lines[0]}\n\n${lines[1]}\r\n${lines[2]}\n\r\n${lines[3]}`;

  it('gives the same non-empty lines at every chunk size, characters split across chunks whole, CRs dropped', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 1 << 16]) {
      expect((await all(Buffer.from(text), size)).flat(), `chunks of ${size}`).toEqual(lines);
    }
  });

  it('yields a batch per chunk, not a line at a time', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => `{"n":${i}}`);
    const batches = await all(Buffer.from(`${many.join('\n')}\n`), 4096);
    expect(batches.flat()).toEqual(many);
    expect(batches.length).toBeLessThan(10);
  });

  it('keeps a last line with no newline after it', async () => {
    expect((await all(Buffer.from('one\ntwo'), 3)).flat()).toEqual(['one', 'two']);
  });
});
