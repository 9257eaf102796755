import { createLiveDisplay, type DisplayStream, type LiveDisplay } from './live-display.js';

export interface TerminalIo {
  stdout: DisplayStream;
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

export interface Terminal {
  /** stdout is a terminal: a live block can be drawn there. */
  readonly interactive: boolean;
  /** Opens the live block on stdout (interactive only); closing it erases it. */
  openLive(): LiveDisplay;
  /** Writes a log line to stderr, above the live block when one is open. */
  logLine(line: string): void;
  /** Writes to stdout, above the live block when one is open (lines that stay: the summary, a manifest loaded). */
  print(text: string): void;
}

/**
 * The process's terminal: stdout for the live block and what a command prints,
 * stderr for log lines. When both are the same terminal, a log line is written
 * between erasing the block and drawing it again, so a warning is never
 * overwritten by the next frame and stays on screen above the block.
 */
export function createTerminal(io: TerminalIo): Terminal {
  let live: LiveDisplay | undefined;
  const interactive = io.stdout.isTTY === true;
  const writeAbove = (write: () => void) => (live ? live.above(write) : write());
  return {
    interactive,
    openLive() {
      if (!interactive) throw new Error('openLive: stdout is not a terminal');
      live?.close();
      const display = createLiveDisplay(io.stdout);
      const opened: LiveDisplay = {
        draw: (lines) => display.draw(lines),
        above: (write) => display.above(write),
        close: () => {
          display.close();
          if (live === opened) live = undefined;
        },
      };
      live = opened;
      return opened;
    },
    logLine(line) {
      writeAbove(() => io.stderr.write(`${line}\n`));
    },
    print(text) {
      writeAbove(() => io.stdout.write(text));
    },
  };
}
