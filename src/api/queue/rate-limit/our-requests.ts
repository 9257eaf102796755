/**
 * Our own requests as the WindowBudget counts them: a sequence number each
 * (in start order), which are still in flight, and when recent ones started,
 * so that the first reply of a window can tell ours from the other clients' in
 * what it counts. A request of ours may be counted in a window when it started
 * after the previous window was known to end and less than a window before.
 */
export class OurRequests {
  /** The last sequence number handed out. */
  seq = 0;
  lastStartAt: number | undefined;
  private readonly inFlight = new Map<number, number>();
  private readonly times: number[] = [];
  private head = 0;
  /** Our starts before this time are counted in an earlier window. */
  private countFrom = Number.NEGATIVE_INFINITY;

  /** Records a start at `now`; forgets start times older than `keepMs`. Returns its sequence number. */
  start(now: number, keepMs: number): number {
    this.seq += 1;
    this.inFlight.set(this.seq, now);
    this.lastStartAt = now;
    this.times.push(now);
    while (this.head < this.times.length && (this.times[this.head] as number) < now - keepMs) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
    return this.seq;
  }

  /** The request got its answer, or none. */
  settle(seq: number): void {
    this.inFlight.delete(seq);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** In flight, started before `seq`. */
  inFlightBefore(seq: number): number {
    let n = 0;
    for (const s of this.inFlight.keys()) if (s < seq) n += 1;
    return n;
  }

  /** In flight, from `seq` on. */
  inFlightFrom(seq: number): number {
    let n = 0;
    for (const s of this.inFlight.keys()) if (s >= seq) n += 1;
    return n;
  }

  /** When the first request from `seq` on still in flight started; `fallback` when none is earlier. */
  firstSentFrom(seq: number, fallback: number): number {
    let first = fallback;
    for (const [s, at] of this.inFlight) if (s >= seq && at < first) first = at;
    return first;
  }

  /** Our starts from `from` to `to`, both included (as far back as the start times are kept). */
  startedBetween(from: number, to: number): number {
    let n = 0;
    for (let i = this.times.length - 1; i >= this.head; i--) {
      const t = this.times[i] as number;
      if (t < from) break;
      if (t <= to) n += 1;
    }
    return n;
  }

  /** A window ended at `at` (or before): no start before it counts in a later one. */
  windowEnded(at: number): void {
    this.countFrom = Math.max(this.countFrom, at);
  }

  /** Our starts that may be counted in a window seen at `at`, of length `windowMs` or less. */
  mayBeCountedAt(at: number, windowMs: number): number {
    return this.startedBetween(Math.max(this.countFrom, at - windowMs), at);
  }
}
