/**
 * Output pipeline benchmark (docs/operations.md):
 * - throughput: rows/s through normalize + JSONL + gzip + local sink (checkpoints,
 *   state commits and the manifest included), pinned to one CPU when `taskset`
 *   exists; target ≥ 50 000 rows/s on one core;
 * - memory: peak RSS of a process writing 2 million rows; target ≤ 256 MB.
 * Each part runs in its own child process so that neither sees the other's heap.
 *
 *   npm run bench -- output [--rows=300000] [--rss-rows=2000000]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStateDb } from '../../src/state/database.js';
import { sampleRecord } from '../integration/output/support/sample-records.js';
import { numberOption } from './support/bench-option.js';
import { openBenchSession } from './support/bench-session.js';

const TARGET_ROWS_PER_S = 50_000;
const TARGET_RSS_MB = 256;
const CHECKPOINT_EVERY = 100_000;
const SELF = fileURLToPath(import.meta.url);

interface WorkerResult {
  rows: number;
  seconds: number;
  /** CPU seconds of the whole process (main thread and zlib's thread pool). */
  cpuSeconds: number;
  maxRssMb: number;
  files: number;
  compressedMb: number;
}

/** Writes `rows` conversation rows through a real output session into a temp directory. */
async function writeRows(rows: number): Promise<WorkerResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-output-'));
  const db = openStateDb(join(dir, 'state.sqlite'));
  try {
    // Distinct, realistic records (documented fields, embedded contact and message), reused cyclically.
    const pool = Array.from({ length: 2000 }, (_, i) => sampleRecord('conversations', i));
    const startedAt = new Date();
    const gzipLevel = process.env.BENCH_GZIP_LEVEL ? Number(process.env.BENCH_GZIP_LEVEL) : undefined;
    const session = await openBenchSession(db, dir, startedAt, gzipLevel);
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < rows; i++) {
      await session.writeRow('conversations', pool[i % pool.length]!);
      if ((i + 1) % CHECKPOINT_EVERY === 0) {
        session.stage([{ scope: 'bench', key: 'position', value: String(i + 1) }]);
        await session.checkpoint();
      }
    }
    await session.finish();
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const stats = session.stats();
    return {
      rows,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      files: stats.files,
      compressedMb: stats.bytes / 1024 / 1024,
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true']).status === 0;
}

function runWorker(rows: number, pin: boolean): WorkerResult {
  const node = [process.execPath, '--import', 'tsx', SELF, '--worker', String(rows)];
  const [cmd, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
  const child = spawnSync(cmd!, args, { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  if (child.status !== 0) throw new Error(`bench worker failed: ${child.stderr || child.error}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as WorkerResult;
}

/**
 * The throughput target is judged on rows per CPU-second of the pinned process
 * (main thread + zlib thread, both on the one CPU): that is "rows/s on one core"
 * even when other processes share the machine, where wall-clock time would
 * measure the neighbours. Wall-clock rows/s is printed beside it.
 */
export default async function bench(args: string[]): Promise<void> {
  const pin = hasTaskset();
  const speed = runWorker(numberOption(args, 'rows', 300_000), pin);
  const perCpuSecond = speed.rows / speed.cpuSeconds;
  const wall = speed.rows / speed.seconds;
  const memory = runWorker(numberOption(args, 'rss-rows', 2_000_000), pin);
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const lines = [
    `throughput: ${speed.rows} conversation rows, normalize + JSONL + gzip + local sink + commits + manifest`,
    `  ${Math.round(perCpuSecond)} rows per CPU-second (${speed.cpuSeconds.toFixed(2)} CPU s);` +
      ` wall clock ${Math.round(wall)} rows/s (${speed.seconds.toFixed(2)} s, ${pin ? 'pinned to one CPU by taskset' : 'unpinned: no taskset'})`,
    `  ${speed.files} files, ${speed.compressedMb.toFixed(1)} MiB gzip`,
    `  target ≥ ${TARGET_ROWS_PER_S} rows/s on one core → ratio ${(perCpuSecond / TARGET_ROWS_PER_S).toFixed(2)} ${verdict(perCpuSecond >= TARGET_ROWS_PER_S)}`,
    `memory: peak RSS ${memory.maxRssMb.toFixed(0)} MB while writing ${memory.rows} rows` +
      ` (${memory.seconds.toFixed(1)} s, ${Math.round(memory.rows / memory.cpuSeconds)} rows per CPU-second, ${memory.files} files)`,
    `  target ≤ ${TARGET_RSS_MB} MB → ratio ${(memory.maxRssMb / TARGET_RSS_MB).toFixed(2)} ${verdict(memory.maxRssMb <= TARGET_RSS_MB)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const misses = [
    perCpuSecond < TARGET_ROWS_PER_S ? `throughput ${Math.round(perCpuSecond)} rows/s < ${TARGET_ROWS_PER_S}` : '',
    memory.maxRssMb > TARGET_RSS_MB ? `peak RSS ${memory.maxRssMb.toFixed(0)} MB > ${TARGET_RSS_MB}` : '',
  ].filter(Boolean);
  if (misses.length > 0) throw new Error(misses.join('; '));
}

if (process.argv[1] === SELF && process.argv[2] === '--worker') {
  const result = await writeRows(Number(process.argv[3]));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
