/** The first pause after a 429 that says nothing: about a second, as a client would retry by hand. */
export const PROBE_FIRST_MS = 1_000;

/**
 * How long to hold every request after a 429 that says nothing: no
 * `Retry-After`, and no window of the server's own known to end it (API
 * document, Limits: "A throttled request gets 429 with a Retry-After header";
 * a gateway in front of a deployment, or a limiter that is not the documented
 * one, may send neither). Such a 429 does not say a window is spent, so waiting
 * a whole one is the slowest guess: pause about a second, then let one request
 * (the probe) go; while probes meet 429s, double the pause, up to the window
 * (known, or the documented 60 s). A probe's answer that is not a 429 ends it;
 * so does, at once, an answer to a request sent no earlier than the refused
 * one while the pause runs: the server takes requests, the refusal was that
 * request's alone (a gateway shedding load), not a limit on all of ours.
 */
export class ProbeBackoff {
  /** The next request to start is a probe; the probe out, until its answer. */
  private wanted = false;
  private probeSeq: number | undefined;
  private level = 0;
  /** When the current pause began, and when it ends. */
  private pausedAt = Number.NEGATIVE_INFINITY;
  private pauseEnd = Number.NEGATIVE_INFINITY;
  /** The latest send among the requests refused for this pause. */
  private refusedSentAt = Number.NEGATIVE_INFINITY;

  /** While backing off, only one request (the probe) is out at a time. */
  get engaged(): boolean {
    return this.level > 0;
  }

  /** A probe is out, its answer not in. */
  get out(): boolean {
    return this.probeSeq !== undefined;
  }

  /** The next request to start goes as a probe (also the WindowBudget's, to find where a window ends). */
  want(): void {
    this.wanted = true;
  }

  /** Nothing waits for a probe any more (a new window is looked at). */
  unwant(): void {
    this.wanted = false;
  }

  /** Request `seq` starts: the probe, when one was wanted. */
  started(seq: number): void {
    if (!this.wanted) return;
    this.probeSeq = seq;
    this.wanted = false;
  }

  /** Request `seq` ended, with any answer or none. */
  settled(seq: number): void {
    if (this.probeSeq === seq) this.probeSeq = undefined;
  }

  /**
   * A 429 that says nothing, met by a request sent at `sentAt`, received at `now`:
   * the pause to hold every request for, and whether it was a probe's (a 429 the
   * backoff cost). A request already out when the pause began waits with it.
   */
  limited(sentAt: number, now: number, capMs: number): { waitMs: number; probe: boolean } {
    this.refusedSentAt = Math.max(this.refusedSentAt, sentAt);
    if (this.level > 0 && sentAt <= this.pausedAt) return { waitMs: Math.max(0, this.pauseEnd - now), probe: false };
    const probe = this.level > 0;
    const waitMs = Math.min(capMs, PROBE_FIRST_MS * 2 ** Math.min(this.level, 30));
    this.level += 1;
    this.pausedAt = now;
    this.pauseEnd = now + waitMs;
    this.refusedSentAt = sentAt;
    return { waitMs, probe };
  }

  /**
   * A reply other than a 429, received at `now`, to a request sent at `sentAt`.
   * Sent after the pause began (the probe), it ends the backoff; sent no earlier
   * than the refused request while the pause still runs, it ends both: returns
   * the end of the pause to cut short.
   */
  answered(sentAt: number, now: number): number | undefined {
    if (this.level === 0) return undefined;
    if (sentAt > this.pausedAt) {
      this.level = 0;
      return undefined;
    }
    if (sentAt < this.refusedSentAt || now >= this.pauseEnd) return undefined;
    this.level = 0;
    const end = this.pauseEnd;
    this.pauseEnd = now;
    return end;
  }
}
