/**
 * The commit protocol: how written rows become durable output, and why state never
 * runs ahead of it (docs/architecture.md, "How a file reaches S3"). Its steps, in the
 * order a run meets them, each in one file of this folder:
 *
 * 1. `recover.ts`, at start under the run lock: settles what a killed run left. A
 *    pending checkpoint whose every file is durable in the sink (size, sha256) is
 *    committed; otherwise it is superseded and its files deleted
 *    (`discard-pending.ts`); a half-written manifest is confirmed or its claim released.
 * 2. `output-session.ts` (this file), during the run: `writeRow` normalizes a record
 *    and appends it to its table's JSONL+gzip file in the spool; `stage` holds the
 *    state changes that become true once those rows are durable.
 * 3. `checkpoint-policy.ts`: a checkpoint is due after so many rows or seconds, and
 *    its caller runs one only between two emits.
 * 4. At each checkpoint the session closes its open files (gzip finished, fsynced),
 *    then `commit-checkpoint.ts`: ONE transaction records them and the staged changes
 *    as a pending checkpoint; every file is uploaded to the sink; ONE transaction
 *    marks the files committed and applies the changes. A crash in between leaves a
 *    pending checkpoint for step 1 of the next run.
 * 5. `write-manifest.ts`, at the end: the run's committed files are claimed in the
 *    state database, then `_manifests/<run_id>.json` is written last.
 * On abort, `discard-pending.ts` supersedes the run's pending checkpoints and deletes
 * their files; committed work stays.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, isoNow, systemClock } from '../clock.js';
import { OutputSessionError, SchemaError } from '../errors.js';
import type { StateChange } from '../kv-state.js';
import type { Logger } from '../log.js';
import { BatchWriter, type FileKind } from '../output/batch-writer.js';
import type { ManifestSource } from '../output/manifest.js';
import { normalizeRecord } from '../output/normalize/normalize-record.js';
import { serializeSafe } from '../output/normalize/safe-text.js';
import { dataFileKey, type OutputFormat, rejectedFileKey } from '../output/object-keys.js';
import {
  createParquetEngine,
  type ParquetEngine,
  type ParquetEngineOptions,
} from '../output/parquet/parquet-engine.js';
import { NO_PRIVACY, type PrivacyPolicy } from '../output/privacy/privacy-policy.js';
import type { FaultPoint, Sink } from '../output/sinks/sink.js';
import { TABLE_NAMES, TABLES, type TableName } from '../output/tables.js';
import { createCheckpointStore } from '../state/checkpoint-store.js';
import type { StateDb } from '../state/database.js';
import { createRunStore } from '../state/run-store.js';
import { commitCheckpoint } from './commit-checkpoint.js';
import { discardPending } from './discard-pending.js';
import { MarkLog, markLogPath } from './mark-log.js';
import { writeManifest } from './write-manifest.js';

export interface OutputSessionOptions {
  db: StateDb;
  sink: Sink;
  runId: string;
  startedAt: Date;
  maxRecordsPerFile: number;
  maxBytesPerFile: number;
  /** Directory for files being written; created (0700) when absent. */
  spoolDir: string;
  logger: Logger;
  /** Time of `_synced_at` and of the state rows. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** zlib level of output files. @default 3 (see JsonlGzipFileOptions) */
  gzipLevel?: number;
  /** The format of data files (`destination.format`); rejected records are always gzip JSONL. @default 'jsonl' */
  format?: OutputFormat;
  /** The Parquet engine's settings (format `parquet`). @default its defaults */
  parquet?: ParquetEngineOptions;
  /** Named points of the commit protocol where crash tests stop the process. */
  faultPoint?: FaultPoint;
  /** Columns hashed or dropped before a row is written (docs/output.md, "Column privacy"). @default none */
  privacy?: PrivacyPolicy;
  /** What the run reads, recorded in its manifest (`source`). @default not recorded */
  source?: ManifestSource;
  /**
   * The account every row names (`_account`, on rows, tombstones and rejected
   * records alike), recorded in the manifest (`account`): the configured name,
   * else the organization slug (sourceAccount).
   */
  account: string;
  /** Called after every committed checkpoint (a remote state schedules its upload); may throw to stop the run. */
  onCommitted?: () => void;
  /** Awaited after the manifest's files are claimed, before the manifest is written (a remote state uploads). */
  beforeManifest?: () => Promise<void>;
}

export interface OutputStats {
  /** Rows written per table, tombstones included. */
  rows: Record<TableName, number>;
  tombstones: Record<TableName, number>;
  /** Records without a usable primary key, written to `_rejected/`. */
  rejected: Record<TableName, number>;
  /** Fields that went to `_extra` (unknown fields and values of the wrong type). */
  extraFields: Record<TableName, number>;
  /** Values of another JSON type read losslessly into a typed column (lossless-coercion.ts). */
  coercedValues: Record<TableName, number>;
  /** Strings in which NUL or a lone surrogate was replaced with U+FFFD (rows and rejected records). */
  sanitizedStrings: Record<TableName, number>;
  /** Files committed by this session (data and rejected) and their compressed bytes. */
  files: number;
  bytes: number;
}

export interface OutputSession {
  readonly runId: string;
  /** Normalizes and appends a record; resolves once buffered (awaits backpressure). */
  writeRow(table: TableName, record: Record<string, unknown>, options?: { deleted?: boolean }): Promise<void>;
  /** Stages state changes to apply at the next checkpoint. */
  stage(changes: StateChange[]): void;
  /** Closes open files, makes them durable in the sink, then commits them + staged changes in one transaction. */
  checkpoint(): Promise<void>;
  /**
   * Makes the rows written and the changes staged so far durable in the spool,
   * without a commit (docs/architecture.md, "Marks"): a run killed later keeps
   * them. Called between two emits, awaited. Nothing for Parquet output.
   */
  mark(): Promise<void>;
  /** Final checkpoint, then the manifest (written last). Marks the run finished in `runs`. */
  finish(summary?: unknown): Promise<{ manifestKey: string; files: number }>;
  stats(): OutputStats;
  /** Drops uncommitted work (spool files, staged changes); committed work stays. */
  abort(): Promise<void>;
}

const perTable = (): Record<TableName, number> =>
  Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;

class Session implements OutputSession {
  readonly runId: string;
  private readonly writers = new Map<string, BatchWriter>();
  private staged: StateChange[] = [];
  /** How many of `staged` the mark log holds already. */
  private markedChanges = 0;
  private readonly marks: MarkLog;
  private seq = 0;
  private serial: Promise<unknown> = Promise.resolve();
  private state: 'open' | 'finished' | 'aborted' = 'open';
  /** Set when a checkpoint failed: later changes could then claim rows that are not committed. */
  private failure: unknown;
  private clockMs = Number.NaN;
  private clockIso = '';
  private readonly counts: OutputStats = {
    rows: perTable(),
    tombstones: perTable(),
    rejected: perTable(),
    extraFields: perTable(),
    coercedValues: perTable(),
    sanitizedStrings: perTable(),
    files: 0,
    bytes: 0,
  };
  private readonly clock: Pick<Clock, 'now'>;
  private readonly fault: FaultPoint;
  private readonly privacy: PrivacyPolicy;
  private readonly store;
  private readonly runs;
  /** Opened with the first Parquet file, closed when the session ends. */
  private parquetEngine: ParquetEngine | undefined;

  constructor(private readonly o: OutputSessionOptions) {
    this.runId = o.runId;
    this.clock = o.clock ?? systemClock;
    this.fault = o.faultPoint ?? (() => undefined);
    this.privacy = o.privacy ?? NO_PRIVACY;
    this.store = createCheckpointStore(o.db);
    this.runs = createRunStore(o.db);
    this.marks = new MarkLog(markLogPath(o.spoolDir));
  }

  private writer(kind: FileKind, table: TableName): BatchWriter {
    const id = `${kind}:${table}`;
    let writer = this.writers.get(id);
    if (!writer) {
      const parquet = kind === 'data' && this.o.format === 'parquet';
      const keyOf = (seq: number) =>
        kind === 'data'
          ? dataFileKey(table, this.o.startedAt, this.runId, seq, this.o.format)
          : rejectedFileKey(table, this.o.startedAt, this.runId, seq);
      writer = new BatchWriter({
        table,
        kind,
        maxRecordsPerFile: this.o.maxRecordsPerFile,
        maxBytesPerFile: this.o.maxBytesPerFile,
        gzipLevel: this.o.gzipLevel,
        allocate: () => {
          const seq = ++this.seq;
          return { key: keyOf(seq), path: join(this.o.spoolDir, `${this.runId}-${seq}-${kind}-${table}.jsonl.gz`) };
        },
        // Rows are written as gzip JSONL first; a closed file is then converted (and fsynced) as a whole.
        finish: parquet ? (file) => this.parquet().convert(file, table) : undefined,
      });
      this.writers.set(id, writer);
    }
    return writer;
  }

  private parquet(): ParquetEngine {
    this.parquetEngine ??= createParquetEngine({ faultPoint: this.fault, ...this.o.parquet });
    return this.parquetEngine;
  }

  async writeRow(table: TableName, record: Record<string, unknown>, options?: { deleted?: boolean }): Promise<void> {
    this.assertUsable();
    if (!Object.hasOwn(TABLES, table)) throw new SchemaError(`unknown output table ${String(table)}`);
    const syncedAt = this.syncedAt();
    const deleted = options?.deleted === true;
    const meta = { runId: this.runId, syncedAt, deleted, account: this.o.account };
    const result = normalizeRecord(table, record, meta, this.privacy.table(table));
    if (result.ok) {
      this.counts.rows[table]++;
      if (deleted) this.counts.tombstones[table]++;
      this.counts.extraFields[table] += result.extraFields;
      this.counts.coercedValues[table] += result.coercedValues;
      const { line, sanitized } = serializeSafe(result.row);
      this.counts.sanitizedStrings[table] += sanitized;
      await this.writer('data', table).write(line);
      return;
    }
    this.counts.rejected[table]++;
    const raw = 'raw' in result ? result.raw : record;
    const rejected = {
      _rejected_at: syncedAt,
      _run_id: this.runId,
      _account: this.o.account,
      reason: result.reason,
      raw,
    };
    const { line, sanitized } = serializeSafe(rejected);
    this.counts.sanitizedStrings[table] += sanitized;
    await this.writer('rejected', table).write(line);
  }

  private assertUsable(): void {
    if (this.state !== 'open') throw new OutputSessionError(`output session ${this.runId} is ${this.state}`);
    if (this.failure !== undefined) {
      throw new OutputSessionError(`output session ${this.runId} failed at a checkpoint; abort it`, {
        cause: this.failure,
      });
    }
  }

  /** `_synced_at` of a row written now; formatted once per millisecond. */
  private syncedAt(): string {
    const ms = this.clock.now();
    if (ms !== this.clockMs) {
      this.clockMs = ms;
      this.clockIso = new Date(ms).toISOString();
    }
    return this.clockIso;
  }

  stage(changes: StateChange[]): void {
    this.assertUsable();
    for (const change of changes) this.staged.push(change);
  }

  checkpoint(): Promise<void> {
    try {
      this.assertUsable();
    } catch (error) {
      return Promise.reject(error);
    }
    // Swap the staged changes out now: rows written before this call are in the
    // files closed below; changes staged later wait for the next checkpoint.
    const changes = this.staged;
    this.staged = [];
    this.markedChanges = 0;
    const run = this.serial.then(() => this.commit(changes));
    // After a failed checkpoint nothing more may commit: a later position would
    // cover rows of the failed one, which are not durable. Only abort() remains.
    this.serial = run.catch((error: unknown) => {
      this.failure ??= error;
    });
    return run;
  }

  mark(): Promise<void> {
    try {
      this.assertUsable();
    } catch (error) {
      return Promise.reject(error);
    }
    // Parquet files are converted when closed: an open one has no prefix to keep.
    if (this.o.format === 'parquet') return Promise.resolve();
    const changes = this.staged.slice(this.markedChanges);
    this.markedChanges = this.staged.length;
    const run = this.serial.then(() => this.markNow(changes));
    this.serial = run.catch((error: unknown) => {
      this.failure ??= error;
    });
    return run;
  }

  /** Files first, durable up to their marks; then the log line that names them. */
  private async markNow(changes: StateChange[]): Promise<void> {
    const marked = (await Promise.all([...this.writers.values()].map((w) => w.mark()))).flat();
    const versions = this.privacy.schemaVersions;
    const files = marked.map((f) => ({ ...f, schema_version: versions[f.table] }));
    await this.marks.append({ run_id: this.runId, after_checkpoint: this.store.lastCheckpointId(), files, changes });
    await this.fault('marked');
  }

  private async commit(changes: StateChange[]): Promise<void> {
    const closed = await Promise.all([...this.writers.values()].map((w) => w.takeClosed()));
    const files = closed.flat();
    for (let i = 0; i < files.length; i++) await this.fault('file-closed');
    const ctx = { runId: this.runId, store: this.store, sink: this.o.sink, logger: this.o.logger };
    const schemaVersions = this.privacy.schemaVersions;
    // The checkpoint takes over everything the marks describe, once it is recorded.
    const recorded = () => this.marks.clear();
    await commitCheckpoint({ ...ctx, clock: this.clock, fault: this.fault, schemaVersions, recorded }, files, changes);
    this.o.onCommitted?.();
    this.counts.files += files.length;
    for (const f of files) this.counts.bytes += f.bytes;
  }

  async finish(summary?: unknown): Promise<{ manifestKey: string; files: number }> {
    this.assertUsable();
    try {
      await this.checkpoint();
    } finally {
      await this.parquetEngine?.close();
    }
    this.state = 'finished';
    const { runId, sink, startedAt } = this.o;
    const ctx = {
      runs: this.runs,
      sink,
      clock: this.clock,
      fault: this.fault,
      logger: this.o.logger,
      beforePut: this.o.beforeManifest,
      privacy: this.privacy,
      source: this.o.source,
      account: this.o.account,
    };
    return writeManifest(ctx, { runId, startedAt, summary });
  }

  stats(): OutputStats {
    return structuredClone(this.counts);
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.staged = [];
    await this.serial;
    await this.marks.clear();
    await Promise.all([...this.writers.values()].map((w) => w.discard()));
    await this.parquetEngine?.close().catch(() => undefined);
    const { sink, logger } = this.o;
    await discardPending({ store: this.store, sink, logger, clock: this.clock }, this.runId);
    this.runs.end(this.runId, 'aborted', isoNow(this.clock), undefined);
  }
}

/** Starts the output side of one run: records the run, prepares the spool directory. */
export async function openOutputSession(options: OutputSessionOptions): Promise<OutputSession> {
  await mkdir(options.spoolDir, { recursive: true, mode: 0o700 });
  createRunStore(options.db).begin(options.runId, options.startedAt.toISOString());
  return new Session(options);
}
