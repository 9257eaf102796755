import { join } from 'node:path';
import { type OutputSession, openOutputSession } from '../../../src/commit/output-session.js';
import { silentLogger } from '../../../src/log.js';
import type { OutputFormat } from '../../../src/output/object-keys.js';
import { newRunId } from '../../../src/output/run-id.js';
import { createLocalSink } from '../../../src/output/sinks/local-sink.js';
import type { StateDb } from '../../../src/state/database.js';

/** A real output session of one run writing under `dir` (out/, spool/), with the default file limits. */
export function openBenchSession(
  db: StateDb,
  dir: string,
  startedAt: Date,
  gzipLevel?: number,
  format: OutputFormat = 'jsonl',
): Promise<OutputSession> {
  return openOutputSession({
    db,
    sink: createLocalSink({ root: join(dir, 'out') }),
    runId: newRunId(startedAt),
    startedAt,
    maxRecordsPerFile: 100_000,
    maxBytesPerFile: 64 * 1024 * 1024,
    spoolDir: join(dir, 'spool'),
    logger: silentLogger(),
    gzipLevel,
    format,
    account: 'bench',
  });
}
