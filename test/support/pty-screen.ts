import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import xterm from '@xterm/headless';
import { spawn } from 'node-pty';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built CLI, as a person runs it (`npm run build` first). */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export interface PtyRun {
  exitCode: number;
  /**
   * Every line on the terminal at the end, scrollback included: rows the terminal
   * wrapped are joined back into the line written; right-trimmed, trailing blank lines dropped.
   */
  screen: string[];
  /** The same, row by row as the terminal shows them. */
  rows: string[];
  /** The bytes the program wrote, as a terminal received them. */
  raw: string;
  /** With `frames`: the visible rows after each write, right-trimmed and joined by newlines (what a person saw as it ran). */
  frames: string[];
}

/**
 * Runs the built CLI in a pseudo-terminal of `cols` × `rows` (node-pty), feeds
 * every byte it writes to a terminal emulator (@xterm/headless, the emulator of
 * VS Code's terminal), and returns the final screen: what a person sees once the
 * command has ended, scrolled-off lines included. `onOutput` sees the raw text
 * as it arrives (to act mid-run, e.g. resize).
 */
export async function runInPty(
  args: string[],
  options: {
    cols: number;
    rows?: number;
    env?: Record<string, string | undefined>;
    cwd?: string;
    timeoutMs?: number;
    /** Keep what the screen showed after each write (PtyRun.frames). */
    frames?: boolean;
    onOutput?: (raw: string, control: { resize(cols: number, rows: number): void }) => void;
  },
): Promise<PtyRun> {
  const rows = options.rows ?? 40;
  const term = new xterm.Terminal({ cols: options.cols, rows, scrollback: 10_000, allowProposedApi: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, TERM: 'xterm-256color', ...options.env })) {
    if (v !== undefined) env[k] = v;
  }
  // A person's terminal, not CI: the CLI decides its log format from this as from the TTY.
  delete env.CI;
  const child = spawn(process.execPath, [CLI, ...args], {
    name: 'xterm-256color',
    cols: options.cols,
    rows,
    cwd: options.cwd ?? ROOT,
    env,
  });
  let raw = '';
  const frames: string[] = [];
  let written = Promise.resolve();
  const control = {
    resize(cols: number, r: number) {
      written = written.then(() => {
        term.resize(cols, r);
        child.resize(cols, r);
      });
    },
  };
  child.onData((data) => {
    raw += data;
    written = written.then(() => new Promise<void>((resolve) => term.write(data, resolve)));
    if (options.frames) written = written.then(() => void frames.push(visibleRows(term)));
    options.onOutput?.(raw, control);
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pty run of ${args.join(' ')} timed out; output so far:\n${raw}`));
    }, options.timeoutMs ?? 60_000);
    child.onExit(({ exitCode: code }) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  await written;
  const buffer = term.buffer.active;
  const screen: string[] = [];
  const shownRows: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    const text = line?.translateToString(true) ?? '';
    shownRows.push(text);
    if (line?.isWrapped && screen.length > 0) screen[screen.length - 1] += text;
    else screen.push(text);
  }
  for (const list of [screen, shownRows]) while (list.length > 0 && list.at(-1) === '') list.pop();
  term.dispose();
  return { exitCode, screen, rows: shownRows, raw, frames };
}

/** The rows in view now, right-trimmed. */
function visibleRows(term: xterm.Terminal): string {
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let i = buffer.viewportY; i < buffer.viewportY + term.rows; i++) {
    rows.push(buffer.getLine(i)?.translateToString(true) ?? '');
  }
  return rows.join('\n').trimEnd();
}
