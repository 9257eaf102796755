/**
 * Figures that grow with the account (targets in docs/operations.md: requests ≤ minimum + 1 %,
 * peak RSS ≤ 256 MB whatever the dataset size):
 *
 * - re-sync after 1 % of conversations changed: requests ÷ the minimum;
 * - full sync with threads, rate limit lifted, at growing sizes: wall time,
 *   rows/s, peak RSS, and how each grows from the smallest size to the largest;
 * - conversation scan of ~1 000 000 conversations: peak RSS with the GC tuning
 *   of src/cli/gc-tuning.ts and with V8's defaults, and the JS heap retained
 *   per conversation listed.
 *
 * Sizes can be changed for a quicker or a larger run:
 *   npm run bench -- scale --scale-threads=20000,50000,100000 --scale-scan=1000000
 * The sandbox runs in a process of its own and each sync in another (the built
 * code, so `npm run build` first), so RSS is the sync's alone. Timings depend
 * on the machine and its load.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { syncJob } from '../../src/sync/sync-job.js';
import { option } from './support/bench-option.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RSS_TARGET_MB = 256;
/** Share of the seeded conversations the admin token's search lists (the rest belong to the other organization). */
const LISTED_SHARE = 0.8497;

interface ChildResult {
  seconds: number;
  cpuSeconds: number;
  requests: number;
  rateLimited: number;
  scanned: number;
  fetched: number;
  rows: number;
  maxRssMb: number;
  peakHeapMb: number;
  heapBytesPerConversation: number | null;
}

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
  rate_limited: number;
}

/** The sync children run the built code: `npm run build` first. */
function requireBuild(): void {
  if (!existsSync(join(ROOT, 'dist', 'sync', 'sync-job.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
}

/** A sandbox in a process of its own, rate limit lifted. */
async function sandboxProcess(conversations: number): Promise<{ baseUrl: string; stop: () => void }> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'sandbox',
      '--port',
      '0',
      '--conversations',
      String(conversations),
      '--rate-limit',
      '10000000',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c) => {
      out += c;
      const match = /listening on (\S+\/v1)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { baseUrl, stop: () => child.kill('SIGTERM') };
}

function syncChild(configPath: string, gcTuning: 'on' | 'off', heapSlope = false): Promise<ChildResult> {
  const args = [...(heapSlope ? ['--expose-gc'] : []), 'test/bench/support/scale-child.mjs', configPath];
  if (heapSlope) args.push('--heap-slope');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HELPDESK_SYNC_GC_TUNING: gcTuning },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) as string) as ChildResult)
        : reject(new Error(`sync child exit ${code}`)),
    ),
  );
}

function writeConfig(dir: string, baseUrl: string, streams: string[]): string {
  const path = join(dir, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      source: {
        base_url: baseUrl,
        token: 'sandbox-admin',
        rate_limit: { requests_per_minute: 100_000, concurrency: 4 },
      },
      streams,
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state.sqlite') },
    }),
  );
  return path;
}

/** Re-sync after 1 % of the conversations changed: list pages + one thread per changed conversation is the minimum. */
async function resyncOnePercent(): Promise<Record<string, unknown>> {
  const sandbox = await startSandbox({ port: 0, seed: 5, conversations: 4000, rateLimit: 10_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-resync-'));
  try {
    const config = parseConfig(
      {
        source: { base_url: sandbox.baseUrl, token: 'sandbox-admin', rate_limit: { requests_per_minute: 100_000 } },
        streams: ['conversations', 'contacts', 'messages'],
        destination: { type: 'local', path: join(dir, 'out') },
        state: { path: join(dir, 'state.sqlite') },
      },
      'bench',
      {},
    );
    const first = await syncJob(config, { logger: silentLogger() });
    const listed = first.summary.conversations_scanned;
    const ids: string[] = [];
    for (let page = 1; ids.length < listed; page += 1) {
      const res = await fetch(`${sandbox.baseUrl}/search`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
        body: JSON.stringify({ page, per_page: 100, sort: 'oldest' }),
      });
      const body = (await res.json()) as { data: { conversations: { data: Array<{ id: string | number }> } } };
      const items = body.data.conversations.data;
      if (items.length === 0) break;
      for (const item of items) ids.push(String(item.id));
    }
    // 1 % of the listed conversations, spread over the whole list.
    const changed = Math.round(listed / 100);
    const step = Math.floor(ids.length / changed);
    for (let i = 0; i < changed; i += 1) {
      const res = await fetch(`${sandbox.baseUrl}/conversation/${ids[i * step]}`, {
        method: 'PATCH',
        headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
        body: JSON.stringify({ subject: `changed for the benchmark ${i}` }),
      });
      if (!res.ok) throw new Error(`PATCH conversation ${ids[i * step]}: ${res.status}`);
    }
    const second = await syncJob(config, { logger: silentLogger() });
    const minimum = Math.ceil(listed / 100) + changed;
    const made = second.summary.requests.requests;
    const ratio = made / minimum;
    process.stdout.write(
      `re-sync after 1 % changed (${changed} of ${listed} conversations): ${made} requests for a minimum of ${minimum}` +
        ` (${Math.ceil(listed / 100)} list pages + ${changed} threads) → ratio ${ratio.toFixed(3)} (target ≤ 1.01);` +
        ` ${second.summary.messages_fetched} threads fetched, ${second.summary.tables.conversations.rows} conversation rows\n`,
    );
    return {
      conversations: listed,
      changed,
      requests: made,
      minimum,
      ratio,
      threads_fetched: second.summary.messages_fetched,
    };
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Full sync with threads (rate limit lifted) at each size: wall, rows/s, peak RSS. */
async function threadsAtSizes(sizes: number[]): Promise<Record<string, unknown>> {
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const sandbox = await sandboxProcess(Math.round(size / LISTED_SHARE));
    const dir = mkdtempSync(join(tmpdir(), 'hs-bench-threads-'));
    try {
      const r = await syncChild(writeConfig(dir, sandbox.baseUrl, ['conversations', 'contacts', 'messages']), 'on');
      const row: SizeResult = {
        conversations: r.scanned,
        requests: r.requests,
        rows: r.rows,
        seconds: r.seconds,
        rows_per_second: r.rows / r.seconds,
        cpu_seconds: r.cpuSeconds,
        peak_rss_mb: r.maxRssMb,
        peak_heap_mb: r.peakHeapMb,
        rate_limited: r.rateLimited,
      };
      results.push(row);
      process.stdout.write(
        `full sync with threads, ${r.scanned} conversations: ${r.requests} requests, ${r.rows} rows in ${r.seconds.toFixed(1)} s` +
          ` (${row.rows_per_second.toFixed(0)} rows/s, ${r.cpuSeconds.toFixed(1)} s CPU), peak RSS ${r.maxRssMb.toFixed(0)} MB` +
          ` (JS heap ${r.peakHeapMb.toFixed(0)} MB)\n`,
      );
    } finally {
      sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
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
  };
  process.stdout.write(
    `growth ${a.conversations} → ${b.conversations} conversations (×${growth.size.toFixed(1)}): CPU ×${growth.cpu.toFixed(2)},` +
      ` wall ×${growth.wall.toFixed(2)} (linear = ×${growth.size.toFixed(1)}), rows/s ×${growth.rows_per_second.toFixed(2)} (flat = ×1),` +
      ` peak RSS ×${growth.peak_rss.toFixed(2)}, peak JS heap ×${growth.peak_heap.toFixed(2)}\n`,
  );
  return { sizes: results, growth };
}

/** The conversation scan at ~`target` conversations, GC tuned and untuned, plus the heap slope. */
async function largeScan(target: number, heapSlopeAt: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const slopeSandbox = await sandboxProcess(Math.round(heapSlopeAt / LISTED_SHARE));
  const slopeDir = mkdtempSync(join(tmpdir(), 'hs-bench-heap-'));
  try {
    const r = await syncChild(writeConfig(slopeDir, slopeSandbox.baseUrl, ['conversations', 'contacts']), 'on', true);
    out.heap_bytes_per_conversation = r.heapBytesPerConversation;
    out.heap_slope_conversations = r.scanned;
    process.stdout.write(
      `JS heap retained per conversation listed (slope of heapUsed after full GC, ${r.scanned} conversations):` +
        ` ${r.heapBytesPerConversation?.toFixed(1) ?? 'n/a'} bytes\n`,
    );
  } finally {
    slopeSandbox.stop();
    rmSync(slopeDir, { recursive: true, force: true });
  }
  const sandbox = await sandboxProcess(Math.round(target / LISTED_SHARE));
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-scan-'));
  try {
    const config = writeConfig(dir, sandbox.baseUrl, ['conversations', 'contacts']);
    for (const tuning of ['on', 'off'] as const) {
      const r = await syncChild(config, tuning);
      out[`gc_${tuning}`] = {
        conversations: r.scanned,
        requests: r.requests,
        seconds: r.seconds,
        cpu_seconds: r.cpuSeconds,
        peak_rss_mb: r.maxRssMb,
        peak_heap_mb: r.peakHeapMb,
      };
      process.stdout.write(
        `conversation scan of ${r.scanned} conversations (${r.requests} requests, ${r.seconds.toFixed(1)} s wall, ${r.cpuSeconds.toFixed(1)} s CPU), GC tuning ${tuning}:` +
          ` peak RSS ${r.maxRssMb.toFixed(0)} MB, peak heap ${r.peakHeapMb.toFixed(0)} MB (target ≤ ${RSS_TARGET_MB} MB → ratio ${(r.maxRssMb / RSS_TARGET_MB).toFixed(2)})\n`,
      );
      rmSync(join(dir, 'state.sqlite'), { force: true });
      rmSync(join(dir, 'out'), { recursive: true, force: true });
    }
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export default async function bench(args: string[]): Promise<Record<string, unknown>> {
  const sizes = option(args, 'scale-threads', '20000,50000,100000').split(',').map(Number);
  const scan = Number(option(args, 'scale-scan', '1000000'));
  const only = option(args, 'scale-only', 'resync,threads,scan').split(',');
  requireBuild();
  const figures: Record<string, unknown> = {};
  if (only.includes('resync')) figures.resync_one_percent = await resyncOnePercent();
  if (only.includes('threads')) figures.full_sync_with_threads = await threadsAtSizes(sizes);
  if (only.includes('scan')) figures.large_scan = await largeScan(scan, 200_000);
  const misses: string[] = [];
  const resync = figures.resync_one_percent as { ratio: number } | undefined;
  if (resync && resync.ratio > 1.01) misses.push(`re-sync requests ratio ${resync.ratio.toFixed(3)} > 1.01`);
  const large = figures.large_scan as Record<string, { peak_rss_mb: number }> | undefined;
  for (const tuning of ['gc_on', 'gc_off']) {
    const r = large?.[tuning];
    if (r && r.peak_rss_mb > RSS_TARGET_MB)
      misses.push(`${tuning} peak RSS ${r.peak_rss_mb.toFixed(0)} MB > ${RSS_TARGET_MB}`);
  }
  if (misses.length > 0) throw new Error(`scale benchmark missed a target: ${misses.join('; ')}`);
  return figures;
}
