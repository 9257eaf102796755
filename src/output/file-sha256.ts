import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** Read size: one buffer, reused for the whole file. */
const READ_BYTES = 1024 * 1024;

/**
 * sha256 of a file's bytes as lowercase hex, read through one reused buffer
 * (files can be large): a stream would allocate a fresh 64 KiB buffer per
 * chunk, garbage in proportion to the file (a state's base is hashed at every
 * new base and every download), which the process's peak RSS kept.
 */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return hash.digest('hex');
      hash.update(buf.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
}
