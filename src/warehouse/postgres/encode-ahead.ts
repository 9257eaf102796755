import type { BatchKeys } from './batch-keys.js';
import type { CopySpool, OpenSpool } from './copy-spool.js';
import type { TypedCopy } from './typed-copy-rows.js';

/**
 * Bytes of encoded rows kept on disk ahead of the COPY, at most: about the
 * next table's rows of a million-row transaction (350 bytes a row), which Node
 * encodes while the server merges the last one; bounded so a large load does
 * not spool its whole transaction.
 */
export const SPOOL_AHEAD = 128 * 1024 * 1024;

/** A file to encode: its lines, and its table's typed COPY. */
export interface EncodeJob {
  read: () => AsyncIterable<readonly string[]>;
  typed: TypedCopy;
  /** The keys of its table's batch, shown each row's key as it is encoded. */
  keys?: BatchKeys;
}

/** A file's rows, encoded in a spool, and how many of its lines the typed path left out (the landing path's). */
export interface EncodedFile {
  spool: CopySpool;
  rows: number;
  leftOut: number;
}

/** The files' encodings, in their order, made ahead of the copy. */
export interface EncodeAhead {
  /** The next file's encoding once done (or its read's error); the caller closes its spool. */
  next(): Promise<EncodedFile>;
  /** Stops encoding and closes every spool not handed out; waits for the file being encoded. */
  stop(): Promise<void>;
}

class Stopped extends Error {}

/** The rows of one file into a new spool; the spool is closed if anything fails. */
async function encodeFile(job: EncodeJob, openSpool: OpenSpool, stopped: () => boolean): Promise<EncodedFile> {
  const spool = await openSpool();
  let rows = 0;
  let leftOut = 0;
  try {
    for await (const batch of job.read()) {
      // Leaving the loop ends the read (its stream is destroyed): a stop does not wait for the file's end.
      if (stopped()) throw new Stopped('encoding stopped');
      let text = '';
      for (const line of batch) {
        const row = job.typed.encodeLine(line, job.keys);
        if (row === undefined) leftOut += 1;
        else {
          text += `${row}\n`;
          rows += 1;
        }
      }
      await spool.write(text);
    }
  } catch (error) {
    await spool.close();
    throw error;
  }
  return { spool, rows, leftOut };
}

interface Slot {
  promise: Promise<EncodedFile>;
  resolve(file: EncodedFile): void;
  reject(error: unknown): void;
}

function slot(): Slot {
  let resolve!: Slot['resolve'];
  let reject!: Slot['reject'];
  const promise = new Promise<EncodedFile>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A file nobody asks for any more (the load failed before it) must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Encodes the files one after another, in the background of the caller's own
 * work, each into a spool (copy-spool.ts), while fewer than `budget` bytes are
 * waiting to be handed out. The caller copies them in the same order: while
 * the server merges one table, Node encodes the next table's files, and the
 * COPY that follows only streams bytes. A file whose read fails ends the
 * encoding; its error is handed out in its place.
 */
export function encodeAhead(jobs: readonly EncodeJob[], openSpool: OpenSpool, budget = SPOOL_AHEAD): EncodeAhead {
  const slots = jobs.map(slot);
  const waiting = new Set<CopySpool>();
  let ahead = 0;
  let handedOut = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  const room = async () => {
    while (!stopped && ahead >= budget) await new Promise<void>((resolve) => (wake = resolve));
  };
  const work = (async () => {
    for (let i = 0; i < jobs.length; i++) {
      await room();
      if (stopped) return;
      try {
        const file = await encodeFile(jobs[i]!, openSpool, () => stopped);
        waiting.add(file.spool);
        ahead += file.spool.bytes;
        slots[i]!.resolve(file);
      } catch (error) {
        slots[i]!.reject(error);
        return;
      }
    }
  })();
  return {
    async next() {
      const index = handedOut++;
      const wanted = slots[index];
      if (!wanted) throw new Error(`no file ${index + 1} to encode: ${jobs.length} were given`);
      const file = await wanted.promise;
      waiting.delete(file.spool);
      ahead -= file.spool.bytes;
      wake?.();
      return file;
    },
    async stop() {
      stopped = true;
      wake?.();
      await work;
      for (const spool of waiting) await spool.close();
      waiting.clear();
    },
  };
}
