import type { CompletenessFigure } from '../streams/completeness.js';
import { figureState } from './completeness-state.js';
import { esc } from './html.js';

/** Runs the completeness history shows: enough to see a pattern, narrow enough for its column. */
export const HISTORY_RUNS = 12;

/**
 * A stream's completeness over its last runs, oldest on the left: one cell per run that measured
 * it, coloured by its state (complete, explained, more held, incomplete) and, when something was
 * missing, the number missing written in it; each cell's figures on hover. Cells of 18 px: a
 * history a person can read, not a few pixels of bars.
 */
export function completenessHistory(figures: readonly CompletenessFigure[]): string {
  const shown = figures.slice(-HISTORY_RUNS);
  const cells = shown
    .map((f, i) => {
      const { state, label } = figureState(f);
      const x = i * 22;
      const title = `${label}: live ${f.live} of ${f.expected} expected, ${f.unexplained} unexplained`;
      const missing =
        f.unexplained > 0
          ? `<text class="cell-text" x="${x + 9}" y="14" text-anchor="middle">${f.unexplained > 99 ? '99+' : f.unexplained}</text>`
          : '';
      return `<rect class="cell ${state}" x="${x}" y="1" width="18" height="18" rx="3"><title>${esc(title)}</title></rect>${missing}`;
    })
    .join('');
  const w = Math.max(1, shown.length) * 22;
  return `<svg class="history" data-runs="${shown.length}" viewBox="0 0 ${w} 20" width="${w}" height="20" role="img" aria-label="completeness over the last ${shown.length} runs, oldest first">${cells}</svg>`;
}

/** A progress bar for `done` of `total`. */
export function progressBar(done: number, total: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  return `<svg class="progress" viewBox="0 0 300 14" role="img" aria-label="${Math.round(share * 100)}%"><rect class="track" width="300" height="14" rx="7"/><rect class="fill" width="${(300 * share).toFixed(1)}" height="14" rx="7"/></svg>`;
}
