import { randomUUID } from 'node:crypto';
import { close, openSync, read, unlinkSync, write } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const writeAt = promisify(write);
const readAt = promisify(read);
const closeFd = promisify(close);

/** Characters gathered before a write, and bytes per chunk read back: few system calls, bounded memory. */
const CHUNK = 256 * 1024;

/**
 * Rows encoded for a COPY, kept on disk until the connection is free to send
 * them, so that Node can encode the next files while the server merges.
 */
export interface CopySpool {
  /** Appends text (whole rows with their newlines). */
  write(text: string): Promise<void>;
  /** Bytes written so far. */
  readonly bytes: number;
  /** Everything written, read back in chunks. */
  chunks(): AsyncIterable<Buffer>;
  /** Frees the file; safe to call twice. */
  close(): Promise<void>;
}

/** Where spools are made: the OS temporary directory unless a load says otherwise. */
export type OpenSpool = () => Promise<CopySpool>;

/**
 * A spool in `dir`. Its file is removed as soon as it is opened and used through
 * the open descriptor alone (tmpfile(3)'s way): whatever ends the process, a
 * failure, SIGINT or kill -9, leaves no file behind, and the disk space is
 * freed when the descriptor is closed. Opened and removed in one synchronous
 * step (two quick system calls), so that no other work of the process, a
 * crash included, runs between them. Where the system cannot remove an open
 * file, it is removed at close instead.
 */
export async function openCopySpool(dir: string = tmpdir()): Promise<CopySpool> {
  const path = join(dir, `helpdesk-sync-copy-${process.pid}-${randomUUID()}`);
  const fd = openSync(path, 'wx+', 0o600);
  let removeAtClose = false;
  try {
    unlinkSync(path);
  } catch {
    removeAtClose = true;
  }
  let pending = '';
  let bytes = 0;
  let closed = false;
  const flush = async () => {
    if (pending === '') return;
    const data = Buffer.from(pending, 'utf8');
    pending = '';
    // A write may take fewer bytes than asked; a full disk fails the next one.
    for (let done = 0; done < data.length; ) {
      const { bytesWritten } = await writeAt(fd, data, done, data.length - done, bytes + done);
      if (bytesWritten === 0) throw new Error(`could not write the COPY spool in ${dir}`);
      done += bytesWritten;
    }
    bytes += data.length;
  };
  return {
    async write(text) {
      pending += text;
      if (pending.length >= CHUNK) await flush();
    },
    get bytes() {
      return bytes + Buffer.byteLength(pending);
    },
    async *chunks() {
      await flush();
      for (let position = 0; position < bytes; ) {
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK, bytes - position));
        const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, position);
        if (bytesRead === 0) throw new Error(`the COPY spool ended at byte ${position} of ${bytes}`);
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeFd(fd);
      if (removeAtClose) await unlink(path).catch(() => undefined);
    },
  };
}
