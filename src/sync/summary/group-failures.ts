import type { SyncSummary } from '../sync-types.js';

/** One failure of a run: the stream names it failed together, its code and its message. */
export interface GroupedFailure {
  streams: string[];
  code: string;
  message: string;
}

/**
 * A summary's `failed_streams` as a person reads them: one entry per failure, the
 * names one implementation served together (the conversation scan's three) on it.
 * Summaries written before the field existed have none.
 */
export function groupFailures(summary: Pick<SyncSummary, 'failed_streams'> | undefined): GroupedFailure[] {
  const byFailure = new Map<string, GroupedFailure>();
  for (const f of summary?.failed_streams ?? []) {
    const key = `${f.code}\n${f.message}`;
    const entry = byFailure.get(key) ?? { streams: [], code: f.code, message: f.message };
    entry.streams.push(f.stream);
    byFailure.set(key, entry);
  }
  return [...byFailure.values()];
}
