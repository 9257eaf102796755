/**
 * A signal that aborts when either of two does, for the life of one request;
 * `unlink()` when the request ends removes what it added to both.
 *
 * Not AbortSignal.any(): on Node 20 every call leaves an entry in each source
 * signal's set of dependants that is never removed, even once the combined
 * signal is collected (nodejs/node#55351). With the queue's own signal, which
 * lives as long as the process, that was about 50 bytes per request: 50 MB of
 * heap by the end of a million-conversation sync, and a daemon that grew
 * without end.
 */
export function linkedSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  const fromA = () => controller.abort(a.reason);
  const fromB = () => controller.abort(b.reason);
  if (a.aborted) fromA();
  else if (b.aborted) fromB();
  a.addEventListener('abort', fromA, { once: true });
  b.addEventListener('abort', fromB, { once: true });
  return {
    signal: controller.signal,
    unlink() {
      a.removeEventListener('abort', fromA);
      b.removeEventListener('abort', fromB);
    },
  };
}
