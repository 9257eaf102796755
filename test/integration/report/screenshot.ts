import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import type { Page } from 'playwright-core';

/** The picture of the status page in docs/status-page.md. */
export const DOCS_SCREENSHOT = fileURLToPath(new URL('../../../docs/images/status-page.png', import.meta.url));

/** Where the PNG says what page it shows: a tEXt chunk under this keyword. */
const KEYWORD = 'helpdesk-sync page';

/**
 * What a picture of the page must show to be the page: its cards, its sections and the streams
 * of its completeness table, in order. A screenshot whose shape differs from the page's is stale.
 */
export async function pageShape(page: Page): Promise<string> {
  const texts = (selector: string) =>
    page.locator(selector).evaluateAll((els) => els.map((el) => (el.textContent ?? '').trim()));
  const cards = await texts('main .card > h2');
  const sections = await texts('main h3');
  const streams = await page
    .locator('table.completeness tbody tr')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-stream') ?? ''));
  return `cards: ${cards.join(', ')}; sections: ${sections.join(', ')}; streams (${streams.length}): ${streams.join(', ')}`;
}

/** The PNG with a tEXt chunk holding `shape`, inserted before its IEND chunk. */
export function withShape(png: Buffer, shape: string): Buffer {
  const data = Buffer.concat([Buffer.from(KEYWORD, 'latin1'), Buffer.from([0]), Buffer.from(shape, 'latin1')]);
  const type = Buffer.from('tEXt', 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  type.copy(chunk, 4);
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, data])), 8 + data.length);
  const iend = png.length - 12;
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') throw new Error('not a PNG ending in IEND');
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

/** The shape a PNG says it shows; undefined when it says none (a picture not taken by the test). */
export function shapeOf(file: string): string | undefined {
  const png = readFileSync(file);
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const text = png.toString('latin1', at + 8, at + 8 + length);
      const [keyword, value] = text.split('\0');
      if (keyword === KEYWORD) return value;
    }
    at += 12 + length;
  }
  return undefined;
}

/** Writes the picture with the shape it shows. */
export function writeScreenshot(file: string, png: Buffer, shape: string): void {
  writeFileSync(file, withShape(png, shape));
}
