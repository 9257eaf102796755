import v8 from 'node:v8';

/**
 * Makes V8 grow the heap in small steps instead of doubling it.
 *
 * A sync holds little live data (tens of MB for 200 000 conversations) but
 * allocates fast (pages of JSON, hashes, JSONL lines). With its default
 * heuristics V8 lets the heap grow to several times the live data before it
 * collects, so RSS passed 300 MB on a scan whose live heap was 60–80 MB.
 * Growing by 20% per major GC, and not growing the young generation, keeps
 * that scan under 200 MB (npm run bench -- sync) at the cost of more frequent
 * collections, and sets no hard limit that a large account could hit.
 *
 * These are GC heuristics read at each collection, so setting them at start-up
 * takes effect. HELPDESK_SYNC_GC_TUNING=off keeps V8's defaults.
 */
export function tuneGarbageCollector(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.HELPDESK_SYNC_GC_TUNING === 'off') return false;
  v8.setFlagsFromString('--heap-growing-percent=20');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}
