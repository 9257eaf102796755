/**
 * Time, as every part of the connector reads it: the request queue (pacing,
 * pauses, backoff), upload retries, the commit protocol's timestamps, locks'
 * leases, progress and schedules. Passed in, never read from a global, so each
 * can be tested on a fake clock instead of the wall clock. A part that only
 * reads the time takes `Pick<Clock, 'now'>` and builds a Date from `now()` where
 * it needs one.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Random number in [0, 1), for backoff jitter. */
  random(): number;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The real clock: Date.now, setTimeout, Math.random. */
export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** The clock's time as an ISO 8601 string (UTC), as state rows and manifests record it. */
export function isoNow(clock: Pick<Clock, 'now'>): string {
  return new Date(clock.now()).toISOString();
}
