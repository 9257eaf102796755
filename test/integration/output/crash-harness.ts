/**
 * A sync-shaped process for the crash tests: it recovers, then writes synthetic
 * rows through the real output session, state database and local sink, staging
 * its position at every checkpoint, and finishes with a manifest. With
 * CRASH_AT=<label>:<n> it SIGKILLs itself the n-th time it reaches that named
 * point (commit protocol, sink, recovery, or its own `row-written`).
 *
 * HARNESS_FORMAT=parquet writes Parquet data files (converted by DuckDB at each file's close).
 * HARNESS_MARK_EVERY=n stages its position and marks the spool every n rows between checkpoints,
 * as a first sync does at each page end.
 *
 *   HARNESS_DIR=/tmp/x CRASH_AT=uploaded:3 node --import tsx test/integration/output/crash-harness.ts
 *
 * (By hand, from the sources; the tests run it as plain JavaScript against dist/: builtHarness.)
 */
import { join } from 'node:path';
import { openOutputSession } from '../../../src/commit/output-session.js';
import { recoverPendingCheckpoints } from '../../../src/commit/recover.js';
import { silentLogger } from '../../../src/log.js';
import { newRunId } from '../../../src/output/run-id.js';
import { createLocalSink } from '../../../src/output/sinks/local-sink.js';
import { openStateDb } from '../../../src/state/database.js';
import { createStateReader } from '../../../src/state/state-reader.js';
import { crashPoint } from './support/crash-point.js';

const HARNESS_TOTAL_ROWS = Number(process.env.HARNESS_ROWS ?? '600');
const BATCH = 100;
const MARK_EVERY = Number(process.env.HARNESS_MARK_EVERY ?? '0');

async function main(): Promise<void> {
  const dir = process.env.HARNESS_DIR!;
  const fault = crashPoint(process.env.CRASH_AT);
  const logger = silentLogger();
  const db = openStateDb(join(dir, 'state.sqlite'));
  const sink = createLocalSink({ root: join(dir, 'out'), faultPoint: fault });
  const spoolDir = join(dir, 'spool');
  await recoverPendingCheckpoints(db, sink, logger, { faultPoint: fault, spoolDir });
  const startedAt = new Date();
  const session = await openOutputSession({
    db,
    sink,
    runId: newRunId(startedAt),
    startedAt,
    maxRecordsPerFile: 40,
    maxBytesPerFile: 1024 * 1024,
    spoolDir,
    logger,
    faultPoint: fault,
    account: 'acme',
    format: process.env.HARNESS_FORMAT === 'parquet' ? 'parquet' : 'jsonl',
  });
  let next = Number(createStateReader(db).get('harness', 'next') ?? '0');
  while (next < HARNESS_TOTAL_ROWS) {
    const end = Math.min(next + BATCH, HARNESS_TOTAL_ROWS);
    for (let i = next; i < end; i++) {
      await session.writeRow('conversations', { id: `c-${i}`, ticket_id: i, subject: `row ${i}` });
      if (i % 7 === 0) await session.writeRow('messages', { id: `m-${i}`, conversation_id: `c-${i}` });
      if (i % 50 === 0) await session.writeRow('tags', { name: `no id ${i}` });
      fault('row-written');
      if (MARK_EVERY > 0 && (i + 1) % MARK_EVERY === 0 && i + 1 < end) {
        session.stage([{ scope: 'harness', key: 'next', value: String(i + 1) }]);
        await session.mark();
      }
    }
    session.stage([
      { scope: 'harness', key: 'next', value: String(end) },
      { scope: 'harness-batches', key: String(next), value: String(end) },
    ]);
    await session.checkpoint();
    next = end;
  }
  await session.finish({ rows: HARNESS_TOTAL_ROWS });
  fault('finished');
  db.close();
}

await main();
