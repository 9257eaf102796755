import { STREAM_NAMES, type StreamName } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { checkStreamNames } from '../streams/check-stream-names.js';

export interface Selection {
  streams: StreamName[];
  fullRefresh: Set<StreamName>;
}

/**
 * The stream names of a run: `--streams`, else the config's `streams`, else all;
 * and which of them ignore their fingerprints (--full-refresh: a list, or `true`
 * for every selected one). Naming in --full-refresh a stream that is not run is
 * a usage error rather than a silent no-op.
 */
export function resolveSelection(
  configured: readonly StreamName[] | undefined,
  streams: readonly string[] | undefined,
  fullRefresh: readonly string[] | true | undefined,
): Selection {
  const selected = checkStreamNames(streams ?? configured ?? STREAM_NAMES, '--streams');
  if (fullRefresh === true) return { streams: selected, fullRefresh: new Set(selected) };
  const full =
    fullRefresh === undefined || fullRefresh.length === 0 ? [] : checkStreamNames(fullRefresh, '--full-refresh');
  const notRun = full.filter((name) => !selected.includes(name));
  if (notRun.length > 0) {
    throw new UsageError(
      `--full-refresh: ${notRun.join(', ')} not selected in this run (selected: ${selected.join(', ')})`,
    );
  }
  return { streams: selected, fullRefresh: new Set(full) };
}
