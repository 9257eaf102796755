/** Warning code of a run stopped by `run.deadline_seconds`. */
export const DEADLINE_REACHED = 'DEADLINE_REACHED';

export interface RunDeadline {
  /** The run's signal: the caller's (SIGINT/SIGTERM), or the deadline, whichever comes first. */
  signal: AbortSignal | undefined;
  /** The warning to add to the summary when the deadline ended the run; undefined otherwise. */
  warning(): { code: string; message: string } | undefined;
}

/**
 * `run.deadline_seconds` as an abort signal joined with the caller's: at the
 * deadline the run stops as it does on SIGTERM (streams stop taking work, what
 * is complete is committed, waits for the rate limit end), so a run that keeps
 * meeting 429s ends cleanly instead of holding its schedule slot for ever. The
 * timer does not keep the process alive.
 */
export function runDeadline(seconds: number | undefined, signal: AbortSignal | undefined): RunDeadline {
  if (seconds === undefined) return { signal, warning: () => undefined };
  const timeout = AbortSignal.timeout(seconds * 1000);
  return {
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    warning: () =>
      timeout.aborted && !signal?.aborted
        ? {
            code: DEADLINE_REACHED,
            message:
              `the run reached its deadline (run.deadline_seconds: ${seconds}) and stopped: ` +
              'what was complete is committed, the next run resumes',
          }
        : undefined,
  };
}
