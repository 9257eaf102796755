import { formatDuration } from '../format-duration.js';
import type { RunTraffic } from '../state/run-traffic-store.js';
import { labelEvery, legend, niceCeil, type PlotBox, yAxis, yOf } from './chart-parts.js';
import { esc, num } from './html.js';

const W = 760;
const H = 300;

/**
 * A run's requests per rate window against its share of each window, drawn on the server as SVG
 * (no script, no library to ship): a bar per window, the share as a dashed line, each window that
 * met 429s marked by a point at its bar's top with their count, a legend, the y axis in requests
 * per window and the x axis in time from the run's first request. A 429 is a point, not a bar's
 * colour: one 429 among hundreds of requests is a mark, not a red window.
 */
export function trafficChart(t: RunTraffic): string {
  const box: PlotBox = {
    left: 64,
    right: W - 16,
    top: 44,
    bottom: H - 58,
    max: niceCeil(Math.max(t.limit_per_window, ...t.windows.map((x) => x.requests), 1) * 1.15),
  };
  const step = (box.right - box.left) / Math.max(1, t.windows.length);
  const barWidth = Math.max(2, Math.min(step * 0.7, 64));
  const center = (i: number) => box.left + i * step + step / 2;
  // Few enough windows for each bar to carry its count above it.
  const counted = t.windows.length <= 24;
  const bars = t.windows
    .map((win, i) => {
      const top = yOf(box, win.requests);
      // The requests answered 429 are the top of the bar, in red: sent, counted, refused.
      const refusedTop = yOf(box, win.requests - win.rate_limited);
      const title = `window ${i + 1} (from ${offset(t, i)}): ${win.requests} requests${win.rate_limited ? `, ${win.rate_limited} of them answered 429` : ''}`;
      const count = counted
        ? `<text class="bar-label" x="${center(i).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle">${num(win.requests)}</text>`
        : '';
      const x = (center(i) - barWidth / 2).toFixed(1);
      const refused =
        win.rate_limited > 0
          ? `<rect class="bar refused" x="${x}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(refusedTop - top).toFixed(1)}"/>`
          : '';
      return `<rect class="bar" x="${x}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(box.bottom - top).toFixed(1)}"><title>${esc(title)}</title></rect>${refused}${count}`;
    })
    .join('');
  const points = t.windows
    .map((win, i) => {
      if (win.rate_limited === 0) return '';
      const y = yOf(box, win.requests) - (counted ? 22 : 9);
      return (
        `<circle class="point429" cx="${center(i).toFixed(1)}" cy="${y.toFixed(1)}" r="5"><title>${esc(`window ${i + 1}: ${win.rate_limited} answered 429`)}</title></circle>` +
        `<text class="point-label" x="${(center(i) + 9).toFixed(1)}" y="${(y + 4).toFixed(1)}">${num(win.rate_limited)} × 429</text>`
      );
    })
    .join('');
  const limitY = yOf(box, t.limit_per_window).toFixed(1);
  const every = labelEvery(t.windows.length, 10);
  const xTicks = t.windows
    .map((_, i) => {
      if (i % every !== 0) return '';
      const x = (box.left + i * step).toFixed(1);
      return `<line class="axis" x1="${x}" y1="${box.bottom}" x2="${x}" y2="${box.bottom + 5}"/><text class="tick" x="${x}" y="${box.bottom + 18}" text-anchor="middle">${esc(offset(t, i))}</text>`;
    })
    .join('');
  const seconds = Math.round(t.window_ms / 1000);
  const key = legend(
    [
      { kind: 'bar', cls: 'bar', label: 'requests sent' },
      { kind: 'bar', cls: 'bar refused', label: 'of them answered 429' },
      { kind: 'line', cls: 'limit', label: `the run's share: ${num(t.limit_per_window)} per window` },
      { kind: 'point', cls: 'point429', label: '429s (count)' },
    ],
    box.left,
    18,
    box.right,
  );
  return (
    `<svg class="chart" data-chart="traffic" viewBox="0 0 ${W} ${H}" role="img" aria-label="requests per ${seconds}-second window against the run's share of ${t.limit_per_window}">` +
    `${key}${yAxis(box, 'requests per window')}${bars}` +
    `<line class="limit" x1="${box.left}" y1="${limitY}" x2="${box.right}" y2="${limitY}"/>${points}${xTicks}` +
    `<text class="axis-title" x="${(box.left + box.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(
      `time from the run's first request · ${t.windows.length} window${t.windows.length === 1 ? '' : 's'} of ${seconds} s (${t.window_source})`,
    )}</text></svg>`
  );
}

/**
 * What a bar above the run's share is, said under the chart rather than left for the reader to
 * explain. The queue starts at most its share in a window of its own, so a bar above it is
 * requests the server refused (a 429 is a request sent), or windows of the chart that are not
 * the queue's: the chart counts them in quarter seconds from the run's first request, the queue
 * opens one at the first request after the last ended (later, after a pause), so a window of the
 * chart can hold parts of two of the queue's, up to twice the share. Above that, the queue spent
 * more than its share, and the note says so. Empty when no bar is above the share.
 */
export function overShareNote(t: RunTraffic): string {
  const share = t.limit_per_window;
  let twoWindows = false;
  const over = t.windows
    .map((win, i) => ({ ...win, i }))
    .filter((win) => win.requests > share)
    .map((win) => {
      const answered = win.requests - win.rate_limited;
      const head = `window ${win.i + 1}: ${win.requests} sent, ${win.requests - share} above the share of ${share}`;
      if (answered <= share) {
        return `${head}; ${win.rate_limited} answered 429 (a refused request is sent too), ${answered} answered within the share`;
      }
      const refused = win.rate_limited > 0 ? ` (${win.rate_limited} answered 429)` : '';
      if (win.requests > 2 * share) return `${head}${refused}, more than two windows' share: the queue overspent`;
      twoWindows = true;
      return `${head}${refused}`;
    });
  if (over.length === 0) return '';
  const edges = twoWindows
    ? " The chart counts windows from the run's first request; the queue opens one at the first request after the " +
      "last one ended (later, after a pause), so a window of the chart can hold parts of two of the queue's: up to twice the share."
    : '';
  return `<p class="note" data-field="over-share">${esc(`${over.join('; ')}.${edges}`)}</p>`;
}

/** When window `i` opened, counted from the run's first request: `0s`, `1m00s`. */
function offset(t: RunTraffic, i: number): string {
  return i === 0 ? '0s' : formatDuration(i * t.window_ms);
}
