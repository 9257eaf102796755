import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { LoadError, LoadNoOutputError } from '../errors.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import { fileFormatOf } from '../output/object-keys.js';
import { createParquetEngine, type ParquetEngine } from '../output/parquet/parquet-engine.js';
import { isRunId } from '../output/run-id.js';
import type { Sink } from '../output/sinks/sink.js';
import type { TableName } from '../output/tables.js';
import type { ManifestFiles } from '../warehouse/warehouse.js';
import { splitLines } from './split-lines.js';

const MANIFESTS = '_manifests/';

/** Decompressed bytes per chunk, so a batch of lines is about a hundred of them: few awaits per file. */
const GUNZIP_CHUNK = 64 * 1024;
const BATCH_LINES = 500;

/** Single lines in batches of BATCH_LINES. */
async function* inBatches(lines: AsyncIterable<string>): AsyncGenerator<string[]> {
  let batch: string[] = [];
  for await (const line of lines) {
    batch.push(line);
    if (batch.length === BATCH_LINES) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The output of the syncs, as a loader reads it: manifests, and the files they list, each checked. */
export interface OutputFiles extends ManifestFiles {
  /** Where the output is (the sink's own words), for messages. */
  readonly location: string;
  /**
   * The manifests whose run is not in `loaded`, in the order to load them: by run_id
   * (start time to the second), then `started_at`, which orders two runs of one second.
   */
  pendingManifests(loaded: ReadonlySet<string>): Promise<Manifest[]>;
  /**
   * Fails when the output holds no manifest at all: no sync ever finished there,
   * so loading "nothing" would hide a wrong destination or working directory.
   */
  requireOutput(): Promise<void>;
  /** Removes the local copies made so far. */
  clean(): Promise<void>;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Passes bytes through, counting them and hashing them, so a stream is checked as it is read. */
function checksum(): Transform & { result(): { bytes: number; sha256: string } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return Object.assign(tap, { result: () => ({ bytes, sha256: hash.digest('hex') }) });
}

function verify(file: ManifestFile, got: { bytes: number; sha256: string }): void {
  if (got.bytes !== file.bytes || got.sha256 !== file.sha256) {
    throw new LoadError(
      `file ${file.key} (table ${file.table}) was altered since the sync wrote it: it is not the file its manifest ` +
        `lists (${got.bytes} bytes, sha256 ${got.sha256}; the manifest says ${file.bytes} bytes, sha256 ${file.sha256}); ` +
        'restore it from a backup, or sync it again with --full-refresh',
    );
  }
}

/** The sort key of a manifest: run_id's start second, then started_at, then run_id. */
export function manifestOrder(a: Manifest, b: Manifest): number {
  const second = (m: Manifest) => m.run_id.slice(0, 16);
  return (
    second(a).localeCompare(second(b)) || a.started_at.localeCompare(b.started_at) || a.run_id.localeCompare(b.run_id)
  );
}

/** Reads a sync's output (local directory or S3) through its sink. */
export function openOutputFiles(sink: Sink): OutputFiles {
  let scratch: string | undefined;
  let copies = 0;
  /** Reads Parquet files back as lines (PostgreSQL's COPY); opened at the first one. */
  let parquet: ParquetEngine | undefined;
  /** Opens a listed file; one that is not there is named as missing, with where it was looked for. */
  async function open(file: ManifestFile): Promise<Readable> {
    try {
      return await sink.read(file.key);
    } catch (cause) {
      if ((await sink.head(file.key).catch(() => undefined)) !== null) throw cause;
      throw new LoadError(
        `file ${file.key} (table ${file.table}) is missing from ${sink.describe()}: the manifest lists it, so it was ` +
          'deleted or moved after the sync wrote it; restore it, or sync its rows again with --full-refresh',
        { cause },
      );
    }
  }
  const files: OutputFiles = {
    location: sink.describe(),
    async pendingManifests(loaded) {
      const manifests: Manifest[] = [];
      for await (const key of sink.list(MANIFESTS)) {
        const runId = key.slice(MANIFESTS.length).replace(/\.json$/, '');
        if (!key.endsWith('.json') || !isRunId(runId) || loaded.has(runId)) continue;
        const text = await readAll(await sink.read(key));
        try {
          manifests.push(JSON.parse(text) as Manifest);
        } catch (cause) {
          throw new LoadError(`${key} is not valid JSON`, { cause });
        }
      }
      return manifests.sort(manifestOrder);
    },
    async requireOutput() {
      for await (const key of sink.list(MANIFESTS)) if (key.endsWith('.json')) return;
      throw new LoadNoOutputError(
        `no sync output in ${sink.describe()}: no manifest under ${MANIFESTS} (relative paths are resolved from the ` +
          `working directory, ${process.cwd()}); run sync first, or check destination in the config`,
      );
    },
    async localFile(file) {
      const tap = checksum();
      const inPlace = sink.localPath?.(file.key);
      if (inPlace !== undefined) {
        // A local destination: checked as it is, and read where it is (no copy).
        await pipeline(await open(file), tap, new Writable({ write: (_chunk, _encoding, done) => done() }));
        verify(file, tap.result());
        return inPlace;
      }
      scratch ??= await mkdtemp(join(tmpdir(), 'helpdesk-load-'));
      // The key's own name keeps DuckDB's compression detection (.jsonl.gz).
      const path = join(scratch, `${++copies}-${file.key.split('/').pop()}`);
      await pipeline(await open(file), tap, createWriteStream(path, { mode: 0o600 }));
      verify(file, tap.result());
      return path;
    },
    async *lineBatches(file) {
      if (fileFormatOf(file.key) === 'parquet') {
        // Checked against the manifest as a whole file, then read back as the JSONL's lines.
        const path = await files.localFile(file);
        parquet ??= createParquetEngine();
        yield* inBatches(parquet.lines(path, file.table as TableName));
        return;
      }
      const tap = checksum();
      const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK });
      const flowing = pipeline(await open(file), tap, gunzip);
      // A failed read or a corrupt gzip stream rejects `flowing`; the stream alone would just end.
      const failed = flowing.then(
        () => undefined,
        (error: unknown) => error,
      );
      yield* splitLines(gunzip);
      const error = await failed;
      if (error !== undefined)
        throw new LoadError(`could not read file ${file.key} (table ${file.table}): ${(error as Error).message}`, {
          cause: error,
        });
      verify(file, tap.result());
    },
    async clean() {
      await parquet?.close();
      parquet = undefined;
      if (scratch) await rm(scratch, { recursive: true, force: true });
      scratch = undefined;
    },
  };
  return files;
}
