import { type Clock, systemClock } from './clock.js';
import type { Logger } from './log.js';
import type { LiveDisplay } from './terminal/live-display.js';

export interface LiveProgressOptions {
  /**
   * The live block on the terminal (stdout is a terminal): the progress is drawn
   * there, in place. Absent: not a terminal, so no redraw at all.
   */
  live?: LiveDisplay;
  /** Where the structured progress events go (the JSON log). */
  logger: Logger;
  /** Not a terminal: where the one progress line goes every `logEveryMs` (stdout). Absent: the event alone. */
  print?: (text: string) => void;
  /** Not a terminal: milliseconds between two progress lines and events. @default 10000 */
  logEveryMs?: number;
  /** Paces the lines and events. @default systemClock */
  clock?: Pick<Clock, 'now'>;
}

export interface LiveProgress<T> {
  update(progress: T): void;
  /** Stops drawing and erases the block; safe to call more than once. */
  done(): void;
}

export interface ProgressView<T> {
  /** The live block's lines (terminal). */
  render(progress: T): string[];
  /** The one line printed at a steady interval elsewhere. */
  line(progress: T): string;
  /** Name and message of the structured log event. */
  event: string;
  message: string;
}

/**
 * A long command's progress (sync, load). On a terminal: `render`'s lines drawn
 * as a live block that log lines scroll above (src/terminal/live-display.ts),
 * erased at the end so the summary is what stays. Elsewhere (CI, containers,
 * pipes): no redraw; at the start and then every `logEveryMs`, one plain line
 * on stdout and one structured `{event, progress}` log entry, so a log shows the command is
 * alive without one line per step.
 */
export function createLiveProgress<T>(options: LiveProgressOptions, view: ProgressView<T>): LiveProgress<T> {
  const clock = options.clock ?? systemClock;
  const logEveryMs = options.logEveryMs ?? 10_000;
  let lastLog: number | undefined;
  let finished = false;
  return {
    update(progress) {
      if (finished) return;
      if (options.live) {
        options.live.draw(view.render(progress));
        return;
      }
      const t = clock.now();
      if (lastLog !== undefined && t - lastLog < logEveryMs) return;
      lastLog = t;
      options.print?.(`${view.line(progress)}\n`);
      options.logger.info({ event: view.event, progress }, view.message);
    },
    done() {
      if (finished) return;
      finished = true;
      options.live?.close();
    },
  };
}
