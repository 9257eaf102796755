/**
 * Figures that grow with the account (targets in docs/performance.md: requests ≤ minimum + 1 %,
 * peak RSS ≤ 256 MB whatever the dataset size, state ≤ 400 bytes per conversation):
 *
 * - `resync`: re-sync after 1 % of conversations changed: requests ÷ the minimum;
 * - `threads`: full sync with threads, rate limit lifted, at growing sizes: wall
 *   time, rows/s, peak RSS and JS heap, state bytes per conversation, and how
 *   each grows from the smallest size to the largest;
 * - `scan`: conversation scan of ~1 000 000 conversations: peak RSS with the GC
 *   tuning of src/cli/gc-tuning.ts and with V8's defaults, and the JS heap
 *   retained per conversation listed;
 * - `large` (on request only): the `threads` figures from 20 000 to
 *   `--scale-large` conversations (default 1 000 000), then, on the largest
 *   size's data, the resume proof: the same first sync killed at 25, 50 and 75 %
 *   of its threads, its merged output compared per key and its requests with the
 *   uninterrupted run's (resume-proof.ts); then the bytes a state in object
 *   storage moves (s3-state-traffic.ts);
 * - `resume` (on request only): the resume proof alone, after one uninterrupted full sync
 *   of `--scale-large` conversations on the same data.
 *
 * Sizes can be changed for a quicker or a larger run:
 *   npm run bench -- scale --scale-threads=20000,50000,100000 --scale-scan=1000000
 *   npm run bench -- scale --scale-only=large --scale-large=1000000 [--scale-large-from=20000]
 *   npm run bench -- scale --scale-only=resume --scale-large=1000000
 * The sandbox runs in a process of its own and each sync in another (the built
 * code, so `npm run build` first), so RSS is the sync's alone. Timings depend
 * on the machine and its load.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option } from './support/bench-option.js';
import { type ResumeFigures, resumeProof } from './support/resume-proof.js';
import { s3StateTraffic } from './support/s3-state-traffic.js';
import {
  type ChildResult,
  describePeak,
  LISTED_SHARE,
  loadAverage,
  type PeakMemory,
  ROOT,
  requestsBetween,
  sandboxProcess,
  syncChild,
  writeConfig,
} from './support/scale-processes.js';
import { resyncOnePercent } from './support/scale-resync.js';
import { largeScan } from './support/scale-scan.js';

const RSS_TARGET_MB = 256;
const STATE_TARGET_BYTES = 400;
const STATE_TARGET_FROM = 100_000;

const SCAN = ['conversations', 'contacts', 'messages'];

interface SizeResult {
  conversations: number;
  requests: number;
  rows: number;
  seconds: number;
  rows_per_second: number;
  cpu_seconds: number;
  peak_rss_mb: number;
  /** Largest JS heap in use seen at a progress tick: apart from RSS, it says whether growth is JS or native. */
  peak_heap_mb: number;
  peak_memory: PeakMemory;
  rate_limited: number;
  /** The machine's load average (1, 5, 15 min) when the sync ended. */
  load_average: string;
  /** The state file after the sync, per conversation listed. */
  state_bytes_per_conversation: number;
}

/** The sync children run the built code: `npm run build` first. */
function requireBuild(): void {
  if (!statSync(join(ROOT, 'dist', 'sync', 'sync-job.js'), { throwIfNoEntry: false }))
    throw new Error('dist/ is missing: run `npm run build` first');
}

/** One full sync with threads at `size`; its sandbox and directory stay for the caller when `keep`. */
async function fullSyncAt(size: number, keep: boolean) {
  const sandbox = await sandboxProcess(Math.round(size / LISTED_SHARE));
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-threads-'));
  let keeping = false;
  try {
    const before = await sandbox.requests();
    const [r] = (await syncChild(writeConfig(dir, sandbox.baseUrl, SCAN))) as [ChildResult];
    const requests = requestsBetween(before, await sandbox.requests());
    const stateBytes = statSync(join(dir, 'state.sqlite')).size;
    const row: SizeResult = {
      conversations: r.scanned,
      requests: r.requests,
      rows: r.rows,
      seconds: r.seconds,
      rows_per_second: r.rows / r.seconds,
      cpu_seconds: r.cpuSeconds,
      peak_rss_mb: r.maxRssMb,
      peak_heap_mb: r.peakHeapMb,
      peak_memory: r.peakMemory,
      rate_limited: r.rateLimited,
      load_average: loadAverage(),
      state_bytes_per_conversation: stateBytes / r.scanned,
    };
    process.stdout.write(
      `full sync with threads, ${r.scanned} conversations: ${r.requests} requests, ${r.rows} rows in ${r.seconds.toFixed(1)} s` +
        ` (${row.rows_per_second.toFixed(0)} rows/s, ${r.cpuSeconds.toFixed(1)} s CPU), peak RSS ${r.maxRssMb.toFixed(0)} MB` +
        ` (JS heap ${r.peakHeapMb.toFixed(0)} MB; ${describePeak(r.peakMemory)}), state ${(stateBytes / 2 ** 20).toFixed(1)} MB =` +
        ` ${row.state_bytes_per_conversation.toFixed(0)} bytes per conversation; load average ${loadAverage()}\n`,
    );
    keeping = keep;
    return { row, kept: keep ? { sandbox, dir, requests } : undefined };
  } finally {
    if (!keeping) {
      sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

type Kept = NonNullable<Awaited<ReturnType<typeof fullSyncAt>>['kept']>;

/** Full sync with threads (rate limit lifted) at each size: wall, rows/s, peak RSS, state size; the last kept when `keepLast`. */
async function threadsAtSizes(sizes: number[], keepLast = false) {
  const results: SizeResult[] = [];
  let kept: Kept | undefined;
  for (const [i, size] of sizes.entries()) {
    const done = await fullSyncAt(size, keepLast && i === sizes.length - 1);
    results.push(done.row);
    kept = done.kept;
  }
  // One size (the resume proof alone) has nothing to grow from.
  if (results.length < 2) return { figures: { sizes: results }, kept };
  const a = results[0] as SizeResult;
  const b = results.at(-1) as SizeResult;
  const growth = {
    size: b.conversations / a.conversations,
    wall: b.seconds / a.seconds,
    // CPU time is the measure of linearity: wall time also carries the machine's load.
    cpu: b.cpu_seconds / a.cpu_seconds,
    rows_per_second: b.rows_per_second / a.rows_per_second,
    peak_rss: b.peak_rss_mb / a.peak_rss_mb,
    peak_heap: b.peak_heap_mb / a.peak_heap_mb,
    state_per_conversation: b.state_bytes_per_conversation / a.state_bytes_per_conversation,
  };
  process.stdout.write(
    `growth ${a.conversations} → ${b.conversations} conversations (×${growth.size.toFixed(1)}): CPU ×${growth.cpu.toFixed(2)},` +
      ` wall ×${growth.wall.toFixed(2)} (linear = ×${growth.size.toFixed(1)}), rows/s ×${growth.rows_per_second.toFixed(2)} (flat = ×1),` +
      ` peak RSS ×${growth.peak_rss.toFixed(2)}, peak JS heap ×${growth.peak_heap.toFixed(2)},` +
      ` state per conversation ×${growth.state_per_conversation.toFixed(2)}\n`,
  );
  return { figures: { sizes: results, growth }, kept };
}

/**
 * Full syncs at `sizes`, then, on the largest one's data, the resume proof and,
 * with `s3`, the S3 state's traffic after it. The proof goes first because it
 * needs the data as the reference run saw it, and the S3 part changes 1 % of it;
 * in this order one sandbox serves both, and the proof's figures are printed
 * before the longer S3 part begins.
 */
async function provenAtSizes(sizes: number[], s3: boolean): Promise<Record<string, unknown>> {
  const { figures, kept } = await threadsAtSizes(sizes, true);
  const { sandbox, dir, requests } = kept as Kept;
  try {
    process.stdout.write('resume proof:\n');
    const resume = await resumeProof({
      sandbox,
      dir,
      reference: { outDir: join(dir, 'out'), requests },
      at: [0.25, 0.5, 0.75],
    });
    if (!s3) return { full_sync_with_threads: figures, resume };
    const traffic = await s3StateTraffic({ baseUrl: sandbox.baseUrl, dir, stateFile: join(dir, 'state.sqlite') });
    return { full_sync_with_threads: figures, resume, s3_state: traffic };
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench(args: string[]): Promise<Record<string, unknown>> {
  const sizes = option(args, 'scale-threads', '20000,50000,100000').split(',').map(Number);
  const scan = Number(option(args, 'scale-scan', '1000000'));
  const only = option(args, 'scale-only', 'resync,threads,scan').split(',');
  requireBuild();
  const figures: Record<string, unknown> = {};
  if (only.includes('resync')) figures.resync_one_percent = await resyncOnePercent();
  if (only.includes('threads')) figures.full_sync_with_threads = (await threadsAtSizes(sizes)).figures;
  if (only.includes('scan')) figures.large_scan = await largeScan(scan, 200_000);
  if (only.includes('large')) {
    const size = Number(option(args, 'scale-large', '1000000'));
    // `large`: threads from 20 000 to `size`, the resume proof and the S3 part on the largest.
    figures.large_account = await provenAtSizes([Number(option(args, 'scale-large-from', '20000')), size], true);
  }
  // `resume`: the resume proof alone, on the data of one uninterrupted full sync (no S3 part).
  if (only.includes('resume'))
    figures.resume_only = await provenAtSizes([Number(option(args, 'scale-large', '1000000'))], false);
  const misses = missedTargets(figures);
  if (misses.length > 0) {
    throw Object.assign(new Error(`scale benchmark missed a target: ${misses.join('; ')}`), { results: figures });
  }
  return figures;
}

function missedTargets(figures: Record<string, unknown>): string[] {
  const misses: string[] = [];
  const resync = figures.resync_one_percent as { ratio: number } | undefined;
  if (resync && resync.ratio > 1.01) misses.push(`re-sync requests ratio ${resync.ratio.toFixed(3)} > 1.01`);
  const large = figures.large_scan as Record<string, { peak_rss_mb: number }> | undefined;
  for (const tuning of ['gc_on', 'gc_off']) {
    const r = large?.[tuning];
    if (r && r.peak_rss_mb > RSS_TARGET_MB)
      misses.push(`${tuning} peak RSS ${r.peak_rss_mb.toFixed(0)} MB > ${RSS_TARGET_MB}`);
  }
  const account = figures.large_account as
    | { full_sync_with_threads: { sizes: SizeResult[] }; resume: ResumeFigures }
    | undefined;
  const syncs = [
    ...((figures.full_sync_with_threads as { sizes: SizeResult[] } | undefined)?.sizes ?? []),
    ...(account?.full_sync_with_threads.sizes ?? []),
  ];
  for (const r of syncs) {
    if (r.peak_rss_mb > RSS_TARGET_MB)
      misses.push(`full sync of ${r.conversations}: peak RSS ${r.peak_rss_mb.toFixed(0)} MB > ${RSS_TARGET_MB}`);
    // The target is per conversation of a large account: a small state is mostly the file's fixed part.
    if (r.conversations >= STATE_TARGET_FROM && r.state_bytes_per_conversation > STATE_TARGET_BYTES)
      misses.push(
        `full sync of ${r.conversations}: state ${r.state_bytes_per_conversation.toFixed(0)} bytes per conversation > ${STATE_TARGET_BYTES}`,
      );
  }
  // Every sync of the S3 part is a sync process too: the same memory target.
  const s3 = (figures.large_account as { s3_state?: Record<string, unknown> } | undefined)?.s3_state ?? {};
  for (const [run, r] of Object.entries(s3)) {
    const rss = (r as { peak_rss_mb?: number } | undefined)?.peak_rss_mb;
    if (rss !== undefined && rss > RSS_TARGET_MB)
      misses.push(`S3 state, ${run}: peak RSS ${rss.toFixed(0)} MB > ${RSS_TARGET_MB}`);
  }
  for (const proof of [account?.resume, (figures.resume_only as { resume: ResumeFigures } | undefined)?.resume]) {
    if (!proof) continue;
    if (!proof.output_equal) misses.push("resumed output differs from the uninterrupted run's");
    if (proof.overhead > proof.bound)
      misses.push(
        `resumed runs made ${proof.overhead} requests more than the uninterrupted run's, over ${proof.bound}`,
      );
  }
  return misses;
}
