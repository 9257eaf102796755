import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSha256 } from '../../../src/output/file-sha256.js';

const dir = mkdtempSync(join(tmpdir(), 'hs-sha256-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fileSha256', () => {
  // Its reads go through one reused 1 MiB buffer: sizes around and across that buffer's edge.
  it.each([0, 1, 1024 * 1024, 2.5 * 1024 * 1024 + 7])('hashes a file of %i bytes as a whole', async (bytes) => {
    const content = randomBytes(bytes);
    const path = join(dir, `f-${bytes}`);
    writeFileSync(path, content);
    expect(await fileSha256(path)).toBe(createHash('sha256').update(content).digest('hex'));
  });
});
