import { formatDuration } from '../format-duration.js';
import { type LegendItem, labelEvery, legend, niceCeil, niceTimeMax, type PlotBox, yAxis, yOf } from './chart-parts.js';
import { esc, num } from './html.js';
import { type RunView, rowsOf } from './status-view.js';

const W = 760;
const H = 360;
const OUTCOMES = ['succeeded', 'partial', 'interrupted', 'failed', 'crashed', 'running'] as const;

/**
 * The last runs over time, oldest on the left: how long each took (a bar in its outcome's
 * colour) above the rows it wrote (tombstones included), each panel with its own y axis, the
 * runs' start times along the bottom and a legend. A run without a summary (failed before its
 * manifest) has no rows bar.
 */
export function runsChart(runs: readonly RunView[]): string {
  const shown = runs.filter((r) => r.duration_ms !== undefined).reverse();
  if (shown.length === 0) return '<p>No run has finished yet.</p>';
  const rows = shown.map((r) => (r.summary ? rowsOf(r.summary).rows : undefined));
  const duration: PlotBox = {
    left: 72,
    right: W - 16,
    top: 44,
    bottom: 172,
    max: niceTimeMax(Math.max(...shown.map((r) => r.duration_ms ?? 0), 1000) * 1.1),
  };
  const written: PlotBox = {
    ...duration,
    top: 206,
    bottom: 306,
    max: niceCeil(Math.max(...rows.map((n) => n ?? 0), 1) * 1.1),
  };
  const step = (duration.right - duration.left) / shown.length;
  const barWidth = Math.max(2, Math.min(step * 0.6, 40));
  const x = (i: number) => (duration.left + i * step + step / 2 - barWidth / 2).toFixed(1);
  // Few enough runs for each bar to carry its value above it.
  const labelled = shown.length <= 16;
  const bar = (box: PlotBox, i: number, value: number, cls: string, words: string, title: string) => {
    const top = yOf(box, value);
    const label = labelled
      ? `<text class="bar-label" x="${(duration.left + i * step + step / 2).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle">${esc(words)}</text>`
      : '';
    return `<rect class="${cls}" x="${x(i)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(box.bottom - top).toFixed(1)}"><title>${esc(title)}</title></rect>${label}`;
  };
  const bars = shown
    .map((run, i) => {
      const when = startWords(run.started_at);
      const took = formatDuration(run.duration_ms ?? 0);
      const d = bar(
        duration,
        i,
        run.duration_ms ?? 0,
        `run-bar ${run.outcome}`,
        took,
        `${run.run_id} (${when}): ${run.outcome}, ${took}`,
      );
      const n = rows[i];
      return (
        d +
        (n === undefined ? '' : bar(written, i, n, 'rows-bar', num(n), `${run.run_id} (${when}): ${n} rows written`))
      );
    })
    .join('');
  const every = labelEvery(shown.length, 8);
  const labels = shown
    .map((run, i) =>
      i % every === 0
        ? `<text class="tick" x="${(duration.left + i * step + step / 2).toFixed(1)}" y="${written.bottom + 18}" text-anchor="middle">${esc(startWords(run.started_at))}</text>`
        : '',
    )
    .join('');
  const present = OUTCOMES.filter((o) => shown.some((r) => r.outcome === o));
  const items: LegendItem[] = [
    ...present.map((o): LegendItem => ({ kind: 'bar', cls: `run-bar ${o}`, label: o })),
    { kind: 'bar', cls: 'rows-bar', label: 'rows written' },
  ];
  return (
    `<svg class="chart" data-chart="runs" viewBox="0 0 ${W} ${H}" role="img" aria-label="the last ${shown.length} runs: duration and rows written">` +
    legend(items, duration.left, 18, duration.right) +
    yAxis(duration, 'duration', (v) => (v === 0 ? '0' : formatDuration(v))) +
    yAxis(written, 'rows written') +
    bars +
    labels +
    `<text class="axis-title" x="${(duration.left + duration.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(
      `run started (UTC) · the last ${shown.length} run${shown.length === 1 ? '' : 's'}, oldest on the left`,
    )}</text></svg>`
  );
}

/** A run's start as the axis writes it: `11-25 19:18`. */
function startWords(iso: string): string {
  return new Date(iso).toISOString().slice(5, 16).replace('T', ' ');
}
