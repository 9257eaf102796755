import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildResult, LISTED_SHARE, sandboxProcess, syncChild, writeConfig } from './scale-processes.js';

const RSS_TARGET_MB = 256;

/** The conversation scan at ~`target` conversations, GC tuned and untuned, plus the heap slope. */
export async function largeScan(target: number, heapSlopeAt: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const slopeSandbox = await sandboxProcess(Math.round(heapSlopeAt / LISTED_SHARE));
  const slopeDir = mkdtempSync(join(tmpdir(), 'hs-bench-heap-'));
  try {
    const [r] = (await syncChild(writeConfig(slopeDir, slopeSandbox.baseUrl, ['conversations', 'contacts']), {
      heapSlope: true,
    })) as [ChildResult];
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
      const [r] = (await syncChild(config, { gcTuning: tuning })) as [ChildResult];
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
