import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CopySpool, openCopySpool } from '../../../src/warehouse/postgres/copy-spool.js';
import { openFilesUnder } from '../../support/open-files.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-copy-spool-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function readBack(spool: CopySpool): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of spool.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('openCopySpool', () => {
  it('gives back what was written, across many chunks and multi-byte characters, and counts its bytes', async () => {
    const spool = await openCopySpool(dir);
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i}\tünïcødé 😀 ${'x'.repeat(i % 50)}\n`);
    // Written in pieces of every size, some far above a chunk.
    for (let i = 0; i < rows.length; i += 1 + (i % 7) * 1000)
      await spool.write(rows.slice(i, i + 1 + (i % 7) * 1000).join(''));
    const text = rows.join('');
    expect(spool.bytes).toBe(Buffer.byteLength(text));
    expect(await readBack(spool)).toBe(text);
    // Read again: the same bytes (a COPY rolled back to its savepoint is not read twice, but nothing forbids it).
    expect(await readBack(spool)).toBe(text);
    await spool.close();
  });

  it('leaves no file in its directory while open, and holds none once closed (twice is fine)', async () => {
    const spool = await openCopySpool(dir);
    await spool.write('a\tb\n'.repeat(100_000));
    expect(readdirSync(dir)).toEqual([]);
    // The removed file is still open and readable: the handle is the only way to it.
    expect(openFilesUnder(dir)).toHaveLength(1);
    expect(openFilesUnder(dir)[0]).toMatch(/helpdesk-sync-copy-.* \(deleted\)$/);
    expect((await readBack(spool)).length).toBe(400_000);
    await spool.close();
    await spool.close();
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('reads back nothing when nothing was written', async () => {
    const spool = await openCopySpool(dir);
    await spool.write('');
    expect(spool.bytes).toBe(0);
    expect(await readBack(spool)).toBe('');
    await spool.close();
  });

  it('fails to open where it cannot write, naming the place', async () => {
    await expect(openCopySpool(join(dir, 'absent'))).rejects.toThrow(/absent/);
  });
});
