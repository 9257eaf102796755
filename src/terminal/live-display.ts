import { createLogUpdate } from 'log-update';
import { fitLine, rowsAt } from './fit-line.js';

/** The part of a TTY write stream the display uses (process.stdout). */
export interface DisplayStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

export interface LiveDisplay {
  /** Draws `lines` as the live block, in place of the block drawn before. */
  draw(lines: readonly string[]): void;
  /**
   * Erases the block, runs `write` (which prints lines that must stay: a log line),
   * and draws the block again below them, so nothing written is ever overwritten.
   */
  above(write: () => void): void;
  /** Erases the block for good; nothing of it stays on the screen. */
  close(): void;
}

/**
 * The live block of a long command on a terminal. log-update (sindresorhus)
 * does the redraw: it erases exactly the rows its last frame took and writes
 * only what changed, inside the terminal's synchronized-output brackets so a
 * frame never shows half drawn. Each line is cut one cell short of the width,
 * so no line wraps and a frame's rows are its lines. When the terminal is
 * resized narrower, terminals rewrap (reflow) the rows already drawn; the
 * display then erases the rows those lines take at the new width before
 * drawing again, so no fragment of an earlier frame stays.
 */
export function createLiveDisplay(stream: DisplayStream): LiveDisplay {
  // showCursor: log-update would otherwise hide the cursor through cli-cursor, whose
  // exit hook installs SIGINT/SIGTERM handlers beside the commands' own (exit 130/143).
  const update = createLogUpdate(stream as NodeJS.WriteStream, { showCursor: true });
  let drawn: string[] = [];
  let shown = false;
  const columns = () => stream.columns ?? 80;
  let lastColumns = columns();

  const render = () => {
    const width = columns();
    update(drawn.map((line) => fitLine(line, width)).join('\n'));
    lastColumns = width;
    shown = true;
  };
  const erase = () => {
    if (!shown) return;
    const width = columns();
    if (width < lastColumns) {
      // The rows already on screen, as the narrower terminal rewrapped them.
      const rows = rowsAt(
        drawn.map((line) => fitLine(line, lastColumns)),
        width,
      );
      stream.write(eraseRows(rows + 1));
      update.done();
    } else {
      update.clear();
    }
    shown = false;
  };
  const onResize = () => {
    if (!shown) return;
    erase();
    render();
  };
  stream.on?.('resize', onResize);

  return {
    draw(lines) {
      drawn = [...lines];
      if (columns() !== lastColumns && shown) erase();
      render();
    },
    above(write) {
      erase();
      write();
      if (drawn.length > 0) render();
    },
    close() {
      stream.off?.('resize', onResize);
      erase();
      drawn = [];
      update.done();
    },
  };
}

/** Erases `count` rows upward from the cursor's row (the sequence log-update uses), cursor left at column 1. */
function eraseRows(count: number): string {
  let sequence = '';
  for (let i = 0; i < count; i++) sequence += `\x1b[2K${i < count - 1 ? '\x1b[1A' : ''}`;
  return `${sequence}\x1b[G`;
}
