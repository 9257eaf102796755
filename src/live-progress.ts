import { type Clock, systemClock } from './clock.js';
import type { Logger } from './log.js';

export interface LiveProgressOptions {
  /** Where the TTY display goes (stdout). */
  stream: { write(text: string): unknown; isTTY?: boolean };
  /** Where progress events go when `stream` is not a TTY. */
  logger: Logger;
  /** Force TTY mode on or off. @default stream.isTTY */
  tty?: boolean;
  /** Non-TTY: milliseconds between two progress log events. @default 10000 */
  logEveryMs?: number;
  /** Paces the non-TTY log events. @default systemClock */
  clock?: Pick<Clock, 'now'>;
}

export interface LiveProgress<T> {
  update(progress: T): void;
  /** Stops drawing; safe to call more than once. */
  done(): void;
}

/**
 * A long command's progress (sync, load). On a TTY: `render`'s lines rewritten in
 * place. Otherwise: a structured `event` log entry (`{event, progress}`) at most
 * every `logEveryMs`, so container logs show the command is alive without one line
 * per step.
 */
export function createLiveProgress<T>(
  options: LiveProgressOptions,
  view: { render(progress: T): string[]; event: string; message: string },
): LiveProgress<T> {
  const tty = options.tty ?? options.stream.isTTY === true;
  const clock = options.clock ?? systemClock;
  const logEveryMs = options.logEveryMs ?? 10_000;
  let drawn = 0;
  let lastLog: number | undefined;
  let finished = false;
  return {
    update(progress) {
      if (finished) return;
      if (tty) {
        const lines = view.render(progress);
        const up = drawn > 0 ? `\x1b[${drawn}A` : '';
        options.stream.write(`${up}${lines.map((l) => `\x1b[2K${l}\n`).join('')}`);
        drawn = lines.length;
        return;
      }
      const t = clock.now();
      if (lastLog !== undefined && t - lastLog < logEveryMs) return;
      lastLog = t;
      options.logger.info({ event: view.event, progress }, view.message);
    },
    done() {
      finished = true;
    },
  };
}
