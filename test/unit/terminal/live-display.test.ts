import { EventEmitter } from 'node:events';
import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { fitLine, rowsAt } from '../../../src/terminal/fit-line.js';
import { createTerminal } from '../../../src/terminal/terminal.js';

/** An emulated terminal (@xterm/headless) behind a stream shaped like process.stdout. */
function emulated(cols: number, rows = 30) {
  // convertEol: a pty's line discipline turns \n into \r\n (onlcr); here there is none.
  const term = new xterm.Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true, convertEol: true });
  let pending = Promise.resolve();
  const events = new EventEmitter();
  const stream = {
    isTTY: true,
    columns: cols,
    rows,
    write(text: string) {
      pending = pending.then(() => new Promise<void>((resolve) => term.write(text, resolve)));
      return true;
    },
    on: (e: 'resize', l: () => void) => events.on(e, l),
    off: (e: 'resize', l: () => void) => events.off(e, l),
  };
  return {
    stream,
    resize(newCols: number) {
      pending = pending.then(() => term.resize(newCols, rows));
      stream.columns = newCols;
      events.emit('resize');
    },
    async screen(): Promise<string[]> {
      await pending;
      const b = term.buffer.active;
      const lines: string[] = [];
      for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '');
      while (lines.length > 0 && lines.at(-1) === '') lines.pop();
      return lines;
    },
  };
}

const block = (n: number, width = 60) => [`progress ${n}`, `  ${'stream'.padEnd(width, '.')} ${n}`, `  legend ${n}`];

describe('the live block on a terminal', () => {
  it('log lines written between frames stay above the block; the block is redrawn in place', async () => {
    const t = emulated(80);
    const terminal = createTerminal({ stdout: t.stream, stderr: t.stream });
    const live = terminal.openLive();
    live.draw(block(1));
    live.draw(block(2));
    terminal.logLine('warning: rate limited (429): pausing every request for 39s');
    live.draw(block(3));
    live.draw(['progress 4']);
    terminal.logLine('error: something else');
    live.draw(block(5));
    expect(await t.screen()).toEqual([
      'warning: rate limited (429): pausing every request for 39s',
      'error: something else',
      ...block(5),
    ]);
    live.close();
    terminal.print('the summary\n');
    expect(await t.screen()).toEqual([
      'warning: rate limited (429): pausing every request for 39s',
      'error: something else',
      'the summary',
    ]);
  });

  it('cuts a line longer than the terminal instead of letting it wrap', async () => {
    const t = emulated(40);
    const live = createTerminal({ stdout: t.stream, stderr: t.stream }).openLive();
    live.draw(block(1, 100));
    live.draw(block(2, 100));
    const screen = await t.screen();
    expect(screen).toHaveLength(3);
    expect(screen[1]).toBe(`  ${'stream'.padEnd(36, '.')}…`);
  });

  it('a terminal made narrower mid-run keeps no fragment of the frames drawn at the old width', async () => {
    const t = emulated(120);
    const terminal = createTerminal({ stdout: t.stream, stderr: t.stream });
    terminal.logLine('warning: kept');
    const live = terminal.openLive();
    live.draw(block(1, 100));
    t.resize(50);
    live.draw(block(2, 100));
    terminal.logLine('warning: also kept');
    t.resize(30);
    live.draw(block(3, 100));
    live.close();
    expect(await t.screen()).toEqual(['warning: kept', 'warning: also kept']);
  });

  it('fitLine keeps a line one cell short of the width; rowsAt counts rows after a reflow', () => {
    expect(fitLine('abcdef', 10)).toBe('abcdef');
    expect(fitLine('abcdefghijkl', 10)).toBe('abcdefgh…');
    expect(rowsAt(['a'.repeat(79), '', 'b'.repeat(30)], 40)).toBe(4);
  });
});
