import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { constants, createGunzip } from 'node:zlib';
import { type Clock, isoNow } from '../clock.js';
import type { Logger } from '../log.js';
import { fileSha256 } from '../output/file-sha256.js';
import { JsonlGzipFile } from '../output/jsonl-gzip-file.js';
import { createCheckpointStore, type FileRecord } from '../state/checkpoint-store.js';
import type { StateDb } from '../state/database.js';
import { type MarkRecord, markLogPath, readMarkLog } from './mark-log.js';

/** Why marked work cannot be kept: it is then fetched again, as if no mark had been made. */
class MarkUnusable extends Error {}

function record(runId: string, f: MarkRecord, done: { bytes: number; sha256: string; path: string }): FileRecord {
  const { key, table, kind, rows, schema_version } = f;
  return { key, run_id: runId, table_name: table, kind, rows, schema_version, ...done, spool_path: done.path };
}

/** The lines of a marked file's prefix (a gzip stream cut at a sync flush), one at a time. */
async function* linesOf(path: string, bytes: number): AsyncGenerator<string> {
  const gunzip = createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
  const input = createReadStream(path, { end: bytes - 1 }).pipe(gunzip);
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    yield* lines;
  }
  if (rest !== '') throw new MarkUnusable(`${path} ends inside a line at its mark`);
}

/** A file still open at the mark: its prefix becomes a complete gzip file of its own, checked line for line. */
async function finishOpen(runId: string, f: Extract<MarkRecord, { state: 'open' }>): Promise<FileRecord> {
  if ((await stat(f.path)).size < f.bytes) throw new MarkUnusable(`${f.path} is shorter than its mark`);
  const out = `${f.path.replace(/\.jsonl\.gz$/, '')}-marked.jsonl.gz`;
  await rm(out, { force: true });
  const file = await JsonlGzipFile.open(out);
  try {
    for await (const line of linesOf(f.path, f.bytes)) await file.write(line, Buffer.byteLength(line));
  } catch (error) {
    await file.discard();
    throw error;
  }
  const closed = await file.close();
  if (closed.rows !== f.rows || closed.uncompressedBytes !== f.uncompressedBytes) {
    throw new MarkUnusable(`${f.path} holds ${closed.rows} lines up to its mark, not ${f.rows}`);
  }
  return record(runId, f, { bytes: closed.bytes, sha256: closed.sha256, path: out });
}

/** A file closed before the mark: kept when it is intact. */
async function checkClosed(runId: string, f: Extract<MarkRecord, { state: 'closed' }>): Promise<FileRecord> {
  const size = await stat(f.path).then((s) => s.size);
  if (size !== f.bytes || (await fileSha256(f.path)) !== f.sha256) throw new MarkUnusable(`${f.path} changed`);
  return record(runId, f, { bytes: f.bytes, sha256: f.sha256, path: f.path });
}

/**
 * Runs at start, before pending checkpoints are resolved, under the run lock:
 * turns what a killed run marked (docs/architecture.md, "Marks") into a pending
 * checkpoint of that run, which recovery then uploads and commits like any
 * other. The marked files' prefixes hold exactly the rows the marked state
 * changes claim, so nothing fetched before the last mark is fetched again.
 * Anything that does not check out (a file gone, shorter, changed, or already
 * in a checkpoint, a state that is not the one they were made on) gives the marks up: that work is fetched again, as before.
 */
export async function recoverMarks(
  db: StateDb,
  spoolDir: string,
  logger: Logger,
  clock: Pick<Clock, 'now'>,
): Promise<{ files: number; changes: number }> {
  const path = markLogPath(spoolDir);
  const entries = await readMarkLog(path);
  const last = entries.at(-1);
  try {
    if (!last) return { files: 0, changes: 0 };
    const store = createCheckpointStore(db);
    if (entries.some((e) => e.run_id !== last.run_id)) throw new MarkUnusable('the log holds several runs');
    // Made on another copy of the state (an older one lacks commits the marked changes build on).
    if (last.after_checkpoint !== store.lastCheckpointId()) throw new MarkUnusable('the state is not the one marked');
    const files: FileRecord[] = [];
    for (const f of last.files) {
      files.push(f.state === 'open' ? await finishOpen(last.run_id, f) : await checkClosed(last.run_id, f));
    }
    const changes = entries.flatMap((e) => e.changes);
    store.recordPending(last.run_id, isoNow(clock), files, changes);
    logger.info(
      { event: 'output.recover_marks', run_id: last.run_id, files: files.length, changes: changes.length },
      'work a stopped run marked is kept',
    );
    return { files: files.length, changes: changes.length };
  } catch (error) {
    logger.warn({ event: 'output.recover_marks', err: error }, 'marked work is given up and will be fetched again');
    return { files: 0, changes: 0 };
  } finally {
    await rm(path, { force: true });
  }
}
