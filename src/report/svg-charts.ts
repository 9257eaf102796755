import type { RunTraffic } from '../state/run-traffic-store.js';
import { esc, num } from './html.js';

/**
 * Requests per rate window against the run's share of each window, drawn on the
 * server as SVG (no script, no library to ship): a bar per window, the limit as
 * a dashed line, windows that met a 429 in red.
 */
export function trafficChart(t: RunTraffic): string {
  const w = 720;
  const h = 220;
  const pad = { left: 48, right: 12, top: 16, bottom: 34 };
  const top = niceCeil(Math.max(t.limit_per_window, ...t.windows.map((x) => x.requests), 1) * 1.1);
  const plotW = w - pad.left - pad.right;
  const plotH = h - pad.top - pad.bottom;
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const step = plotW / Math.max(1, t.windows.length);
  const bars = t.windows
    .map((win, i) => {
      const bh = (win.requests / top) * plotH;
      const cls = win.rate_limited > 0 ? 'bar limited' : 'bar';
      const title = `window ${i + 1}: ${win.requests} requests${win.rate_limited ? `, ${win.rate_limited} answered 429` : ''}`;
      return `<rect class="${cls}" x="${(pad.left + i * step + step * 0.1).toFixed(1)}" y="${(pad.top + plotH - bh).toFixed(1)}" width="${Math.max(1, step * 0.8).toFixed(1)}" height="${bh.toFixed(1)}"><title>${esc(title)}</title></rect>`;
    })
    .join('');
  const limitY = y(t.limit_per_window).toFixed(1);
  const axis = [0, top / 2, top]
    .map(
      (v) => `<text class="tick" x="${pad.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${num(v)}</text>`,
    )
    .join('');
  const seconds = Math.round(t.window_ms / 1000);
  return (
    `<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="requests per ${seconds}-second window against the limit of ${t.limit_per_window}">` +
    `<line class="axis" x1="${pad.left}" y1="${pad.top + plotH}" x2="${w - pad.right}" y2="${pad.top + plotH}"/>${axis}${bars}` +
    `<line class="limit" x1="${pad.left}" y1="${limitY}" x2="${w - pad.right}" y2="${limitY}"/>` +
    `<text class="tick" x="${w - pad.right}" y="${Number(limitY) - 5}" text-anchor="end">limit ${num(t.limit_per_window)} per window</text>` +
    `<text class="tick" x="${pad.left}" y="${h - 8}">windows of ${seconds} s from the run's first request (${t.windows.length})</text></svg>`
  );
}

/** A small bar per run, oldest first: the unexplained shortfall (red) or nothing missing (green). */
export function completenessSparkline(unexplained: readonly number[]): string {
  const w = 10 * Math.max(1, unexplained.length);
  const top = Math.max(1, ...unexplained);
  const bars = unexplained
    .map((u, i) => {
      const bh = u > 0 ? 4 + (u / top) * 14 : 3;
      return `<rect class="${u > 0 ? 'spark bad' : 'spark ok'}" x="${i * 10 + 1}" y="${(18 - bh).toFixed(1)}" width="8" height="${bh.toFixed(1)}"><title>${u} unexplained</title></rect>`;
    })
    .join('');
  return `<svg class="sparkline" viewBox="0 0 ${w} 18" width="${w}" height="18" role="img" aria-label="unexplained per run, oldest first">${bars}</svg>`;
}

/** A progress bar for `done` of `total`. */
export function progressBar(done: number, total: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  return `<svg class="progress" viewBox="0 0 300 14" role="img" aria-label="${Math.round(share * 100)}%"><rect class="track" width="300" height="14" rx="7"/><rect class="fill" width="${(300 * share).toFixed(1)}" height="14" rx="7"/></svg>`;
}

/** The round number (1, 1.2, 1.5, 2 … 8 times a power of ten) at or above `n`: the chart's top. */
function niceCeil(n: number): number {
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * power >= n) ?? 10) * power;
}
