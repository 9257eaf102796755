/**
 * Parquet against gzip JSONL on the same rows (docs/output.md, "Parquet"): each
 * format written by a real output session in its own child process (rows/s per
 * CPU-second and wall clock, peak RSS, bytes per row), then one lake query over
 * each output in DuckDB: conversations per status over the latest live row of
 * each key. The rows are conversations with unique ids, two versions of each
 * and a tombstone for one in twenty, so "latest live" has work to do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { OutputFormat } from '../../../src/output/object-keys.js';
import { openStateDb } from '../../../src/state/database.js';
import { sampleRecord } from '../../integration/output/support/sample-records.js';
import { openBenchSession } from './bench-session.js';
import { peakRssMb } from './peak-rss.mjs';

export interface FormatResult {
  format: OutputFormat;
  rows: number;
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
  bytes: number;
  files: number;
  /** Median of three runs of the lake query, milliseconds. */
  queryMs: number;
  /** The query's answer, status → conversations (the same for both formats, or the comparison is void). */
  answer: Record<string, number>;
}

const CHECKPOINT_EVERY = 100_000;

/** The query a lake user runs first: conversations per status over the latest live row per key. */
export function lakeQuery(from: string): string {
  return [
    'SELECT status, count(*)::INTEGER AS conversations FROM (',
    `  SELECT * FROM ${from}`,
    '  QUALIFY row_number() OVER (PARTITION BY id ORDER BY _synced_at DESC, _run_id DESC) = 1',
    ') WHERE NOT _deleted GROUP BY status ORDER BY status',
  ].join('\n');
}

/** Writes `rows` conversation rows in `format` under `dir/out`; run in a child process. */
export async function writeFormat(
  format: OutputFormat,
  rows: number,
  dir: string,
): Promise<Omit<FormatResult, 'queryMs' | 'answer'>> {
  const db = openStateDb(join(dir, 'state.sqlite'));
  try {
    const session = await openBenchSession(db, dir, new Date(), undefined, format);
    const versions = Math.max(1, Math.floor(rows / 2));
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < rows; i++) {
      const n = i % versions;
      if (i >= versions && n % 20 === 0) {
        await session.writeRow(
          'conversations',
          { id: sampleRecord('conversations', n).id as string },
          { deleted: true },
        );
      } else {
        const record = sampleRecord('conversations', n);
        const status = ['Active', 'Pending', 'Closed'][(n + (i >= versions ? 1 : 0)) % 3];
        await session.writeRow('conversations', {
          ...record,
          status,
          updated_at: new Date(1.78e12 + i * 1000).toISOString(),
        });
      }
      if ((i + 1) % CHECKPOINT_EVERY === 0) {
        session.stage([{ scope: 'bench', key: 'position', value: String(i + 1) }]);
        await session.checkpoint();
      }
    }
    await session.finish();
    const cpu = process.cpuUsage(cpuStart);
    const stats = session.stats();
    return {
      format,
      rows,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      maxRssMb: peakRssMb(),
      bytes: stats.bytes,
      files: stats.files,
    };
  } finally {
    db.close();
  }
}

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(ending) && statSync(join(dir, f)).isFile())
    .map((f) => join(dir, f));
}

async function timeQuery(sql: string): Promise<{ ms: number; answer: Record<string, number> }> {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    const times: number[] = [];
    let answer: Record<string, number> = {};
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const rows = (await db.runAndReadAll(sql)).getRowObjectsJson();
      times.push(performance.now() - started);
      answer = Object.fromEntries(rows.map((r) => [String(r.status), Number(r.conversations)]));
    }
    return { ms: times.sort((a, b) => a - b)[1]!, answer };
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

const list = (paths: string[]) => `[${paths.map((p) => `'${p}'`).join(', ')}]`;

/** Both formats, each written in a child process (`self --format-worker <format> <rows> <dir>`), then queried. */
export async function compareFormats(self: string, rows: number, pin: boolean): Promise<FormatResult[]> {
  const results: FormatResult[] = [];
  for (const format of ['jsonl', 'parquet'] as const) {
    const dir = mkdtempSync(join(tmpdir(), `bench-format-${format}-`));
    try {
      const node = [process.execPath, '--import', 'tsx', self, '--format-worker', format, String(rows), dir];
      const [cmd, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
      const child = spawnSync(cmd!, args, { encoding: 'utf8', maxBuffer: 1024 * 1024 });
      if (child.status !== 0) throw new Error(`${format} worker failed: ${child.stderr || child.error}`);
      const written = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Omit<FormatResult, 'queryMs' | 'answer'>;
      const out = join(dir, 'out', 'conversations');
      const from =
        format === 'parquet'
          ? `read_parquet(${list(filesUnder(out, '.parquet'))})`
          : `read_json(${list(filesUnder(out, '.jsonl.gz'))}, format = 'newline_delimited', columns = ` +
            "{id: 'VARCHAR', status: 'VARCHAR', _synced_at: 'TIMESTAMPTZ', _run_id: 'VARCHAR', _deleted: 'BOOLEAN'})";
      const { ms, answer } = await timeQuery(lakeQuery(from));
      results.push({ ...written, queryMs: ms, answer });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}
