import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CopySpool, openCopySpool } from '../../../src/warehouse/postgres/copy-spool.js';
import { type EncodedFile, type EncodeJob, encodeAhead } from '../../../src/warehouse/postgres/encode-ahead.js';
import { typedCopy } from '../../../src/warehouse/postgres/typed-copy-rows.js';

const typed = typedCopy('t_batch', [
  { name: 'id', type: 'text' },
  { name: 'n', type: 'bigint' },
])!;

let dir: string;
/** Every spool opened, and whether it was closed. */
let spools: Array<{ closed: boolean }>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-encode-ahead-'));
  spools = [];
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function openSpool(): Promise<CopySpool> {
  const spool = await openCopySpool(dir);
  const seen = { closed: false };
  spools.push(seen);
  return {
    write: (text) => spool.write(text),
    get bytes() {
      return spool.bytes;
    },
    chunks: () => spool.chunks(),
    close: async () => {
      seen.closed = true;
      await spool.close();
    },
  };
}

/** A file's lines in batches, noting when its read starts and whether it ended (whole or stopped). */
function file(lines: string[], perBatch = 2) {
  const seen = { started: false, ended: false, batches: 0 };
  async function* read(): AsyncGenerator<string[]> {
    seen.started = true;
    try {
      for (let i = 0; i < lines.length; i += perBatch) {
        await sleep(0);
        seen.batches += 1;
        yield lines.slice(i, i + perBatch);
      }
    } finally {
      seen.ended = true;
    }
  }
  return { job: { read, typed } satisfies EncodeJob, seen };
}

const row = (id: string, n: unknown) => JSON.stringify({ id, n });

async function contents(encoded: EncodedFile): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of encoded.spool.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('encodeAhead', () => {
  it('hands out each file encoded as COPY rows, in order, counting the lines it left out', async () => {
    const a = file([row('a1', 1), row('a\t2', 2), row('a3', 'not a bigint')]);
    const b = file([row('b1', null)]);
    const ahead = encodeAhead([a.job, b.job], openSpool);
    const first = await ahead.next();
    expect({ rows: first.rows, leftOut: first.leftOut }).toEqual({ rows: 2, leftOut: 1 });
    expect(await contents(first)).toBe('a1\t1\na\\t2\t2\n');
    await first.spool.close();
    const second = await ahead.next();
    expect({ rows: second.rows, leftOut: second.leftOut }).toEqual({ rows: 1, leftOut: 0 });
    expect(await contents(second)).toBe('b1\t\\N\n');
    await second.spool.close();
    await ahead.stop();
    expect(spools.map((s) => s.closed)).toEqual([true, true]);
    await expect(ahead.next()).rejects.toThrow(/no file 3/);
  });

  it('encodes the next files before they are asked for, but no further than the budget', async () => {
    const files = [0, 1, 2].map((i) => file([row(`f${i}`, i)]));
    const unbounded = encodeAhead(
      files.map((f) => f.job),
      openSpool,
    );
    await vi.waitFor(() => expect(files.map((f) => f.seen.ended)).toEqual([true, true, true]));
    await unbounded.stop();
    // Never handed out: closed by stop.
    expect(spools.map((s) => s.closed)).toEqual([true, true, true]);

    spools = [];
    const again = [0, 1, 2].map((i) => file([row(`f${i}`, i)]));
    // One byte: once a file waits to be handed out, the next is not begun.
    const bounded = encodeAhead(
      again.map((f) => f.job),
      openSpool,
      1,
    );
    await vi.waitFor(() => expect(again[0]!.seen.ended).toBe(true));
    await sleep(50);
    expect(again.map((f) => f.seen.started)).toEqual([true, false, false]);
    const first = await bounded.next();
    await vi.waitFor(() => expect(again[1]!.seen.ended).toBe(true));
    await sleep(50);
    expect(again.map((f) => f.seen.started)).toEqual([true, true, false]);
    await first.spool.close();
    await bounded.stop();
    expect(spools.map((s) => s.closed)).toEqual([true, true]);
  });

  it("hands out a read's error in its file's place and encodes nothing after it", async () => {
    const good = file([row('g', 1)]);
    const after = file([row('h', 2)]);
    async function* broken(): AsyncGenerator<string[]> {
      yield [row('x', 1)];
      throw new Error('file x.jsonl.gz was altered');
    }
    const ahead = encodeAhead([good.job, { read: broken, typed }, after.job], openSpool);
    const first = await ahead.next();
    await first.spool.close();
    await expect(ahead.next()).rejects.toThrow('file x.jsonl.gz was altered');
    await ahead.stop();
    expect(after.seen.started).toBe(false);
    // The broken file's spool was closed with its failure.
    expect(spools.map((s) => s.closed)).toEqual([true, true]);
  });

  it('stops in the middle of a file: its read ends there, and every spool is closed', async () => {
    const long = file(
      Array.from({ length: 100_000 }, (_, i) => row(`l${i}`, i)),
      1,
    );
    const ahead = encodeAhead([long.job, file([row('z', 1)]).job], openSpool);
    await vi.waitFor(() => expect(long.seen.started).toBe(true));
    await ahead.stop();
    expect(long.seen.ended).toBe(true);
    expect(long.seen.batches).toBeLessThan(100_000);
    expect(spools).toHaveLength(1);
    expect(spools[0]!.closed).toBe(true);
  });
});
