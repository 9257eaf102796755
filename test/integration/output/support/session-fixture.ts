import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OutputSession, openOutputSession } from '../../../../src/commit/output-session.js';
import { silentLogger } from '../../../../src/log.js';
import type { Manifest } from '../../../../src/output/manifest.js';
import type { OutputFormat } from '../../../../src/output/object-keys.js';
import { createLocalSink } from '../../../../src/output/sinks/local-sink.js';
import type { FaultPoint, Sink } from '../../../../src/output/sinks/sink.js';
import { openStateDb, type StateDb } from '../../../../src/state/database.js';

/** A temp directory with a state database, a local sink and a spool, plus a fake clock. */
export class SessionFixture {
  readonly dir = mkdtempSync(join(tmpdir(), 'output-session-'));
  readonly out = join(this.dir, 'out');
  readonly spool = join(this.dir, 'spool');
  readonly db: StateDb = openStateDb(join(this.dir, 'state.sqlite'));
  sink: Sink = createLocalSink({ root: this.out });
  private time = Date.parse('2026-11-22T10:15:00.000Z');
  private runs = 0;
  /** A second later at every reading. */
  readonly clock = {
    now: (): number => {
      this.time += 1000;
      return this.time;
    },
  };

  open(
    options: { faultPoint?: FaultPoint; maxRecordsPerFile?: number; sink?: Sink; format?: OutputFormat } = {},
  ): Promise<OutputSession> {
    this.runs++;
    const startedAt = new Date(this.clock.now());
    return openOutputSession({
      db: this.db,
      sink: options.sink ?? this.sink,
      runId: `20261122T1015${String(this.runs).padStart(2, '0')}Z-run00${this.runs}`,
      startedAt,
      maxRecordsPerFile: options.maxRecordsPerFile ?? 1000,
      maxBytesPerFile: 1024 * 1024,
      spoolDir: this.spool,
      logger: silentLogger(),
      clock: this.clock,
      faultPoint: options.faultPoint,
      format: options.format,
      account: 'acme',
    });
  }

  manifest(runId: string): Manifest {
    return JSON.parse(readFileSync(join(this.out, '_manifests', `${runId}.json`), 'utf8')) as Manifest;
  }

  kv(scope: string): Record<string, string> {
    const rows = this.db.db.prepare('SELECT key, value FROM kv_state WHERE scope = ?').all(scope) as {
      key: string;
      value: string;
    }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async keys(prefix = ''): Promise<string[]> {
    const out: string[] = [];
    for await (const key of this.sink.list(prefix)) out.push(key);
    return out.sort();
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A fault point that throws at the n-th time `label` is reached (an in-process stand-in for a crash). */
export function stopAt(label: string, n = 1): FaultPoint {
  let seen = 0;
  return (at) => {
    if (at === label && ++seen === n) throw new Error(`stopped at ${label}#${n}`);
  };
}
