import v8 from 'node:v8';

const TUNED = ['--heap-growing-percent=20', '--semi-space-growth-factor=1'];
/** V8's own values of the same flags (0: no fixed growth, V8's heuristics decide). */
const V8_DEFAULTS = ['--heap-growing-percent=0', '--semi-space-growth-factor=2'];

/** Whether the CLI tunes the collector (HELPDESK_SYNC_GC_TUNING=off keeps V8's defaults). */
const tuningOn = (env: NodeJS.ProcessEnv) => env.HELPDESK_SYNC_GC_TUNING !== 'off';

const setFlags = (flags: readonly string[]) => {
  for (const flag of flags) v8.setFlagsFromString(flag);
};

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
  if (!tuningOn(env)) return false;
  setFlags(TUNED);
  return true;
}

/**
 * Runs a load under V8's own heuristics, then tunes the collector back (for a
 * `sync --load` that syncs again). A load into PostgreSQL parses and encodes
 * every row in Node, where nearly every object dies young: with the young
 * generation held at its first size, the collector took about a quarter of
 * Node's time and the load of a million rows 12–14 s, against 10.6–11.1 s with
 * V8's defaults (peak RSS 147–161 MB, under the 256 MB target). A load into
 * DuckDB does little in Node and peaks the same either way (docs/performance.md,
 * "Loading into a warehouse").
 */
export async function withV8Collector<T>(work: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  if (!tuningOn(env)) return work();
  setFlags(V8_DEFAULTS);
  try {
    return await work();
  } finally {
    setFlags(TUNED);
  }
}
