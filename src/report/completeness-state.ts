import type { CompletenessFigure } from '../streams/completeness.js';
import { describeDifference } from '../sync/summary/format-completeness.js';
import { num } from './html.js';
import { completenessByStream, type RunView } from './status-view.js';

/** How a stream's figure stands, as the page marks it. */
export type FigureState = 'complete' | 'explained' | 'more' | 'incomplete';

/**
 * A figure's state (docs/streams.md, "Completeness"): `incomplete` when something is missing for
 * no known reason; `more` ("more held") when the state holds more than the API counts or than the
 * reasons explain (contacts are never tombstoned, a conversation kept while unlisted, or no known
 * reason): said on the page, never called complete; `explained` when the figures differ and every
 * difference has a reason (a backfill not done, a search cap; reasons that cancel out included);
 * `complete` when live equals expected and nothing needed explaining.
 */
export function figureState(f: CompletenessFigure): { state: FigureState; label: string } {
  if (f.unexplained > 0) return { state: 'incomplete', label: 'incomplete' };
  if (f.unexplained < 0 || f.live > f.expected) return { state: 'more', label: 'more held' };
  if (f.live < f.expected || f.explained.length > 0) return { state: 'explained', label: 'explained' };
  return { state: 'complete', label: 'complete' };
}

/**
 * Is anything missing, in a few words, from each stream's latest figure: what is missing; else
 * nothing missing, and each stream whose figures differ with its differences in words (the
 * reasons, and a surplus no reason explains said as such); else complete. `label` is the word
 * the page's pill says: `more held` when some stream holds more than its reasons explain.
 */
export function completenessWords(runs: readonly RunView[]): {
  state: 'complete' | 'explained' | 'more' | 'incomplete' | 'unmeasured';
  label: string;
  text: string;
} {
  const figures = completenessByStream(runs).map((f) => f.latest);
  if (figures.length === 0) return { state: 'unmeasured', label: '', text: 'not measured yet' };
  const incomplete = figures.filter((f) => f.unexplained > 0);
  if (incomplete.length > 0) {
    return {
      state: 'incomplete',
      label: 'incomplete',
      text: incomplete.map((f) => `${f.stream}: ${num(f.unexplained)} missing`).join(', '),
    };
  }
  const differing = figures.filter((f) => figureState(f).state !== 'complete');
  if (differing.length === 0) {
    return {
      state: 'complete',
      label: 'complete',
      text: `all ${figures.length} streams: nothing missing`,
    };
  }
  const surplus = figures.some((f) => f.unexplained < 0);
  return {
    state: surplus ? 'more' : 'explained',
    label: surplus ? 'more held' : 'explained',
    text: `nothing missing in ${figures.length} stream${figures.length === 1 ? '' : 's'}; ${differing.map((f) => `${f.stream} ${describeDifference(f)}`).join(', ')}`,
  };
}
