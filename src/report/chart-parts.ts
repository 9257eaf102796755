import { esc, num } from './html.js';

/** The round number (1, 1.2, 1.5, 2 … 8 times a power of ten) at or above `n`: a chart's top. */
export function niceCeil(n: number): number {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * power >= n) ?? 10) * power;
}

/** Steps of time a person reads at a glance: 250 ms … 1 s, 2 s, 5 s … 1 h, 2 h, 6 h, 12 h, a day. */
const TIME_STEPS_MS = [
  250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/**
 * The top of a time axis of four ticks at or above `ms`: four of a round step of time, so each
 * tick reads as it is (`2s 4s 6s 8s`), never a quarter of a round number rounded to the second.
 */
export function niceTimeMax(ms: number): number {
  const step = TIME_STEPS_MS.find((s) => s * 4 >= ms) ?? Math.ceil(ms / 4 / 86_400_000) * 86_400_000;
  return step * 4;
}

/** A plot's box inside its SVG, and the scale of its values. */
export interface PlotBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** The value at the top of the box (the bottom is 0). */
  max: number;
}

/** The y coordinate of `v` in the box. */
export const yOf = (box: PlotBox, v: number) => box.bottom - (v / box.max) * (box.bottom - box.top);

/**
 * The y axis of a box: five ticks from 0 to its top, each a light grid line across with its
 * label on the left (`format` writes the value), the axis line, and the axis's title written up
 * its side.
 */
export function yAxis(box: PlotBox, title: string, format: (v: number) => string = num): string {
  const ticks = [0, 1, 2, 3, 4].map((i) => (box.max * i) / 4);
  const lines = ticks
    .map((v) => {
      const y = yOf(box, v).toFixed(1);
      return (
        `<line class="grid" x1="${box.left}" y1="${y}" x2="${box.right}" y2="${y}"/>` +
        `<text class="tick" x="${box.left - 6}" y="${(Number(y) + 4).toFixed(1)}" text-anchor="end">${esc(format(v))}</text>`
      );
    })
    .join('');
  const middle = ((box.top + box.bottom) / 2).toFixed(1);
  return (
    `${lines}<line class="axis" x1="${box.left}" y1="${box.top}" x2="${box.left}" y2="${box.bottom}"/>` +
    `<line class="axis" x1="${box.left}" y1="${box.bottom}" x2="${box.right}" y2="${box.bottom}"/>` +
    `<text class="axis-title" transform="translate(14 ${middle}) rotate(-90)" text-anchor="middle">${esc(title)}</text>`
  );
}

/** One entry of a legend: a bar's swatch, a dashed line, or a point, with its words. */
export interface LegendItem {
  kind: 'bar' | 'line' | 'point';
  /** The class the chart draws that kind of mark with, so the swatch looks the same. */
  cls: string;
  label: string;
}

/** About how wide a legend's text is at its 12 px font. */
const textWidth = (text: string) => text.length * 6.6;

/**
 * A legend from (x, y): each mark's swatch, then its words, on one row while they fit before
 * `right`, then on a row below (16 px down).
 */
export function legend(items: readonly LegendItem[], x: number, y: number, right = Number.POSITIVE_INFINITY): string {
  let at = x;
  let row = y;
  const parts = items.map((item) => {
    const swatchWidth = item.kind === 'line' ? 24 : 18;
    const width = swatchWidth + textWidth(item.label);
    if (at > x && at + width > right) {
      at = x;
      row += 16;
    }
    const swatch =
      item.kind === 'bar'
        ? `<rect class="${item.cls}" x="${at}" y="${row - 9}" width="12" height="12"/>`
        : item.kind === 'line'
          ? `<line class="${item.cls}" x1="${at}" y1="${row - 3}" x2="${at + 18}" y2="${row - 3}"/>`
          : `<circle class="${item.cls}" cx="${at + 6}" cy="${row - 3}" r="5"/>`;
    const label = `<text class="legend" x="${at + swatchWidth}" y="${row + 1}">${esc(item.label)}</text>`;
    at += width + 22;
    return swatch + label;
  });
  return `<g class="legend-row">${parts.join('')}</g>`;
}

/** Which of `n` labels to write so that at most `most` are: every k-th, the first always. */
export function labelEvery(n: number, most: number): number {
  return Math.max(1, Math.ceil(n / most));
}
