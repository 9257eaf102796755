import { type Clock, isoNow } from '../clock.js';
import type { Logger } from '../log.js';
import { buildManifest, type ManifestSource } from '../output/manifest.js';
import { manifestKey } from '../output/object-keys.js';
import type { PrivacyPolicy } from '../output/privacy/privacy-policy.js';
import { type FaultPoint, JSON_CONTENT, type Sink } from '../output/sinks/sink.js';
import type { RunStore } from '../state/run-store.js';

export interface ManifestContext {
  runs: RunStore;
  sink: Sink;
  clock: Pick<Clock, 'now'>;
  fault: FaultPoint;
  logger: Logger;
  /**
   * Awaited once the files are claimed, before the manifest is written: a state
   * kept in object storage uploads here, so the claim is durable before any
   * manifest names the files (otherwise an older copy of the state could list
   * them again).
   */
  beforePut?: () => Promise<void>;
  /** The run's privacy policy: the manifest names what it hashed or dropped. */
  privacy: PrivacyPolicy;
  /** What the run read (the manifest's `source`). */
  source?: ManifestSource;
  /** The `_account` of the run's rows (the manifest's `account`). */
  account?: string;
}

/**
 * Writes `_manifests/<run_id>.json` last (docs/output.md). The files it lists are
 * claimed in the state database first, so a crash at any point can neither list
 * a file twice nor lose it (see createRunStore). A failed upload releases the
 * claim: the next run's manifest lists those files.
 */
export async function writeManifest(
  ctx: ManifestContext,
  run: { runId: string; startedAt: Date; summary?: unknown },
): Promise<{ manifestKey: string; files: number }> {
  const key = manifestKey(run.runId);
  const files = ctx.runs.claimForManifest(run.runId);
  await ctx.fault('manifest-claimed');
  if (ctx.beforePut) {
    try {
      await ctx.beforePut();
    } catch (error) {
      ctx.runs.releaseClaim(run.runId);
      ctx.runs.end(run.runId, 'failed', isoNow(ctx.clock), run.summary);
      throw error;
    }
  }
  const finishedAt = isoNow(ctx.clock);
  const manifest = buildManifest({
    runId: run.runId,
    startedAt: run.startedAt.toISOString(),
    finishedAt,
    location: ctx.sink.describe(),
    files,
    summary: run.summary,
    schemaVersion: ctx.privacy.schemaSetVersion,
    privacy: ctx.privacy.summary,
    privacyKey: ctx.privacy.keyFingerprint,
    source: ctx.source,
    account: ctx.account,
  });
  try {
    await ctx.sink.putBytes(key, `${JSON.stringify(manifest, null, 2)}\n`, JSON_CONTENT);
  } catch (error) {
    // A failed PUT may still have landed (a lost response): release the claim only when
    // the manifest is surely absent; otherwise recovery decides from the sink next start.
    const landed = await ctx.sink.head(key).catch(() => undefined);
    if (landed === null) ctx.runs.releaseClaim(run.runId);
    ctx.runs.end(run.runId, 'failed', isoNow(ctx.clock), run.summary);
    throw error;
  }
  await ctx.fault('manifest-written');
  ctx.runs.confirmManifest(run.runId, finishedAt, run.summary);
  await ctx.fault('manifest-confirmed');
  ctx.logger.info({ event: 'output.manifest', key, files: files.length }, 'manifest written');
  return { manifestKey: key, files: files.length };
}
