/**
 * A line cut to fit `columns` cells, ending in `…` when cut. The live block never
 * relies on the terminal's own wrapping: a line one cell short of the width
 * never wraps, so the block's height is its number of lines whatever the width.
 * Lines are plain text (no escape sequences); code points count one cell each.
 */
export function fitLine(line: string, columns: number): string {
  const room = Math.max(1, columns - 1);
  const chars = [...line];
  if (chars.length <= room) return line;
  return `${chars.slice(0, room - 1).join('')}…`;
}

/** Rows that lines drawn earlier take at `columns`, once a narrower terminal wrapped them (reflow). */
export function rowsAt(lines: readonly string[], columns: number): number {
  const width = Math.max(1, columns);
  return lines.reduce((rows, line) => rows + Math.max(1, Math.ceil([...line].length / width)), 0);
}
