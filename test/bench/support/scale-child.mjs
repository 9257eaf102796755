/**
 * Runs one sync from a JSON config file in its own process and prints one JSON
 * line: wall time, requests, rows, peak RSS and, with `--heap-slope` (needs
 * node --expose-gc), the JS heap retained per conversation listed: every
 * progress tick forces a full GC and samples heapUsed against the list pages
 * read so far; the least-squares slope is the heap that grows with the scan.
 *
 * With `--runs=N` it runs N syncs one after the other in the same process (as
 * the daemon does), a JSON line after each, and before each next one waits
 * for a line on stdin: the parent measures between them, or changes the data.
 *
 * Plain JavaScript on the built code (dist/, `npm run build`): the figures are
 * those of the CLI as shipped, without a TypeScript loader's own memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tuneGarbageCollector } from '../../../dist/cli/gc-tuning.js';
import { parseConfig } from '../../../dist/config/load.js';
import { silentLogger } from '../../../dist/log.js';
import { syncJob } from '../../../dist/sync/sync-job.js';
import { peakRssMb } from './peak-rss.mjs';

/** Conversations per list page (per_page=100). */
const PAGE = 100;

const tuned = tuneGarbageCollector();
const config = parseConfig(JSON.parse(readFileSync(process.argv[2], 'utf8')), 'bench', {});
const gc = globalThis.gc;
const sampleHeap = process.argv.includes('--heap-slope') && typeof gc === 'function';
/** @type {Array<[number, number]>} */
const samples = [];
let peakHeap = 0;

function onProgress(progress) {
  const scan = progress.streams.find((s) => s.stream.startsWith('conversations'));
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  phase =
    progress.streams
      .filter((s) => s.status === 'running')
      .map((s) => s.stream)
      .join('+') || 'between streams';
  sampleMemory();
  if (!sampleHeap || scan?.status !== 'running') return;
  gc();
  samples.push([scan.requests * PAGE, process.memoryUsage().heapUsed]);
}

function slope(points) {
  // The first ticks include start-up allocation; fit the steady part.
  const use = points.slice(Math.floor(points.length / 4));
  if (use.length < 3) return null;
  const n = use.length;
  const mx = use.reduce((a, [x]) => a + x, 0) / n;
  const my = use.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = use.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = use.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

/**
 * What the largest RSS seen so far was made of (sampled every 250 ms and at
 * every progress tick): the JS heap, buffers outside it, and the kernel's split
 * of the RSS into anonymous memory (heap, native allocations such as SQLite's
 * caches) and file-backed pages. The sampler cannot run while the thread is
 * busy in one synchronous call, so VmHWM (maxRssMb) can be above the sample.
 */
let peakMemory = { rssMb: 0 };
let phase = 'start';
const SMAPS = '/proc/self/smaps_rollup';
function smapsMb() {
  if (!existsSync(SMAPS)) return {};
  const text = readFileSync(SMAPS, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { anonymousMb: kb('Anonymous') / 1024, fileMb: (kb('Rss') - kb('Anonymous')) / 1024 };
}
function sampleMemory() {
  const rss = process.memoryUsage.rss();
  if (rss / 2 ** 20 <= peakMemory.rssMb) return;
  const m = process.memoryUsage();
  peakMemory = {
    rssMb: m.rss / 2 ** 20,
    heapUsedMb: m.heapUsed / 2 ** 20,
    heapTotalMb: m.heapTotal / 2 ** 20,
    externalMb: m.external / 2 ** 20,
    arrayBuffersMb: m.arrayBuffers / 2 ** 20,
    ...smapsMb(),
    phase,
  };
}
setInterval(sampleMemory, 250).unref();

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 1);
const lines = runs > 1 ? createInterface({ input: process.stdin }) : undefined;
const nextLine = () => new Promise((resolve) => lines?.once('line', resolve));

for (let run = 1; run <= runs; run += 1) {
  if (run > 1) await nextLine();
  peakMemory = { rssMb: 0 };
  phase = 'start';
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const { summary } = await syncJob(config, { logger: silentLogger(), onProgress });
  const rows = Object.values(summary.tables).reduce((a, t) => a + t.rows, 0);
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    `${JSON.stringify({
      run,
      seconds: (performance.now() - started) / 1000,
      // User + system CPU of the sync: far below the wall time means it is not CPU-bound.
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      requests: summary.requests.requests,
      rateLimited: summary.requests.rateLimited,
      scanned: summary.conversations_scanned,
      fetched: summary.messages_fetched,
      rows,
      tuned,
      maxRssMb: peakRssMb(),
      peakHeapMb: peakHeap / 2 ** 20,
      peakMemory,
      heapBytesPerConversation: sampleHeap ? slope(samples) : null,
      heapSamples: samples.length,
    })}\n`,
  );
}
lines?.close();
process.stdin.destroy();
