import type { RawResponse } from '../../../src/api/errors/error-from-response.js';
import { RequestQueue, type RequestQueueOptions } from '../../../src/api/queue/request-queue.js';
import { FakeClock } from './fake-clock.js';

export const ok = (headers: RawResponse['headers'] = {}): RawResponse => ({ status: 200, headers, body: '{}' });
export const status = (code: number, headers: RawResponse['headers'] = {}): RawResponse => ({
  status: code,
  headers,
  body: JSON.stringify({ message: `status ${code}` }),
});

/** Answers every unscripted request at the time it reaches the server (a fixed answer, or one that takes time). */
export interface FakeServer {
  hit(at: number): RawResponse | (() => Promise<RawResponse>);
}

/** A fake server: answers from a script per request name, records start times and concurrency. */
export class Harness {
  readonly clock: FakeClock;
  readonly starts: Array<{ name: string; at: number }> = [];
  inFlight = 0;
  maxInFlight = 0;
  readonly queue: RequestQueue;
  /** Answers every unscripted request when set: a fixed window per IP, as the API's limiter. */
  server: FakeServer | undefined;
  private readonly scripts = new Map<string, Array<RawResponse | Error | (() => Promise<RawResponse>)>>();

  /** `clock`: a clock of its own, from the given time (a later process of the same deployment). */
  constructor(options: RequestQueueOptions = {}, clock = new FakeClock()) {
    this.clock = clock;
    this.queue = new RequestQueue({
      requestsPerMinute: 600,
      concurrency: 4,
      rateWindowSeconds: 60,
      clock: this.clock,
      ...options,
    });
  }

  script(name: string, ...answers: Array<RawResponse | Error | (() => Promise<RawResponse>)>): void {
    this.scripts.set(name, answers);
  }

  send(name: string, o: { method?: string; idempotent?: boolean; signal?: AbortSignal } = {}): Promise<RawResponse> {
    const method = o.method ?? 'GET';
    return this.queue.request({
      method,
      url: `https://api.example.test/v1/${name}`,
      idempotent: o.idempotent ?? method === 'GET',
      signal: o.signal,
      send: async () => {
        this.starts.push({ name, at: this.clock.now() });
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          const next = this.scripts.get(name)?.shift() ?? this.server?.hit(this.clock.now()) ?? ok();
          if (next instanceof Error) throw next;
          return typeof next === 'function' ? await next() : next;
        } finally {
          this.inFlight -= 1;
        }
      },
    });
  }

  close(): void {
    this.queue.close();
  }
}

/**
 * The API's limiter (Limits: fixed window per client IP), as the sandbox has it:
 * the window opens at the first request after the last one ended; a 429 is not
 * counted and says Retry-After in whole seconds, rounded up.
 */
export class FixedWindowServer {
  private start: number | undefined;
  private count = 0;
  /** Requests let through per window, by window start. */
  readonly perWindow: number[] = [];
  limited = 0;
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Another client on the IP sends one request now. */
  other(at: number): boolean {
    return this.hit(at).status === 200;
  }

  hit(at: number): RawResponse {
    if (this.start === undefined || at >= this.start + this.windowMs) {
      this.start = at;
      this.count = 0;
      this.perWindow.push(0);
    }
    const headers = { 'x-ratelimit-limit': String(this.limit) };
    if (this.count >= this.limit) {
      this.limited += 1;
      const retryAfter = String(Math.max(1, Math.ceil((this.start + this.windowMs - at) / 1000)));
      return status(429, { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': retryAfter });
    }
    this.count += 1;
    this.perWindow[this.perWindow.length - 1] = this.count;
    return ok({ ...headers, 'x-ratelimit-remaining': String(this.limit - this.count) });
  }
}

const open: Harness[] = [];

/** A harness closed by closeHarnesses() (call it in afterEach). */
export function harnessWith(options: RequestQueueOptions = {}, clock?: FakeClock): Harness {
  const h = new Harness(options, clock);
  open.push(h);
  return h;
}

export function closeHarnesses(): void {
  for (const h of open.splice(0)) h.close();
}

/** Runs the fake clock until every given request has settled. */
export async function settleAll<T>(clock: FakeClock, work: Promise<T>[]): Promise<T[]> {
  let settled = false;
  const all = Promise.all(work);
  void all.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await clock.run(() => settled);
  return all;
}

export function maxStartsInAnySecond(times: number[]): number {
  let max = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && (times[j] as number) < (times[i] as number) + 1000; j++) n++;
    max = Math.max(max, n);
  }
  return max;
}
