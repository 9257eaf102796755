import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { RequestStats } from '../../../src/api/index.js';
import type { PlannedStream } from '../../../src/streams/registry.js';
import {
  budgetShare,
  createProgressReporter,
  paceOf,
  progressLine,
  progressLines,
  timeLeft,
  waitLine,
} from '../../../src/sync/progress.js';
import { ProgressTracker } from '../../../src/sync/progress-tracker.js';
import type { StreamProgress, SyncProgress } from '../../../src/sync/run-sync.js';

const stream = (over: Partial<StreamProgress> = {}): StreamProgress => ({
  stream: 'conversations+contacts+messages',
  status: 'running',
  rows: 1200,
  requests: 240,
  elapsed_ms: 60_000,
  budget_requests: 300,
  remaining_requests: 600,
  ...over,
});

const progress = (streams: StreamProgress[]): SyncProgress => ({
  run_id: '20260310T120000Z-abc123',
  elapsed_ms: 75_000,
  requests_per_minute: 300,
  rate_window_ms: 60_000,
  requests: 250,
  rate_limited: 1,
  waited_ms: 40_000,
  streams,
});

describe('progress figures', () => {
  it('rate = requests ÷ what the budget allowed in the rate windows the stream touched', () => {
    expect(budgetShare(stream())).toBe('80%');
    expect(budgetShare(stream({ requests: 300 }))).toBe('100%');
    expect(budgetShare(stream({ requests: 1, budget_requests: 300 }))).toBe('<1%');
    expect(budgetShare(stream({ requests: 0 }))).toBe('-');
    expect(budgetShare(stream({ status: 'pending', requests: 0, budget_requests: undefined }))).toBe('-');
  });

  it('a recent-first backfill gets a line of its own: conversations read of the total, time left at the pace', () => {
    const p = progress([stream()]);
    expect(progressLines(p)).toHaveLength(5);
    p.backfill = { status: 'running', done: 3000, total: 10_000, eta_ms: 1_400_000 };
    expect(progressLines(p)[3]).toBe('  backfill: 3000 of 10000 conversations read, ~23m20s left');
    p.backfill = { status: 'complete', done: 10_000, total: 10_000 };
    expect(progressLines(p)[3]).toBe('  backfill: 10000 of 10000 conversations read, complete');
  });

  it('time left = the known wait, then the remaining requests at the pace; unknown when the stream cannot tell', () => {
    const p = { ...progress([]), waited_ms: 0 };
    expect(timeLeft(stream(), p)).toBe('~2m00s');
    expect(timeLeft(stream({ remaining_requests: 5 }), p)).toBe('~1s');
    expect(timeLeft(stream({ remaining_requests: undefined }), p)).toBe('?');
    expect(timeLeft(stream({ status: 'done' }), p)).toBe('done');
    expect(timeLeft(stream({ status: 'skipped' }), p)).toBe('skipped');
    // A 429's pause (Retry-After) comes first, and so does the rest of the rate window.
    expect(timeLeft(stream(), { ...p, paused_ms_left: 39_000 })).toBe('~2m39s');
    expect(timeLeft(stream(), { ...p, waiting_for_window: { left_ms: 23_000 } })).toBe('~2m23s');
  });

  it('a run that waited goes at its own pace when that is below the configured rate', () => {
    // 250 requests in 75 s while waiting: 200 a minute, not the 300 asked for.
    const p = progress([]);
    expect(paceOf(p)).toBe(200);
    expect(timeLeft(stream(), p)).toBe('~3m00s');
    expect(paceOf({ ...p, waited_ms: 0 })).toBe(300);
  });

  it('a header, named columns, one line per stream, and a legend; every line fits 80 columns', () => {
    const lines = progressLines(
      progress([
        stream({ stream: 'inboxes', status: 'done', rows: 2, requests: 1, elapsed_ms: 200 }),
        stream(),
        stream({ stream: 'reports', status: 'pending', rows: 0, requests: 0, elapsed_ms: 0 }),
      ]),
    );
    expect(lines).toEqual([
      'sync 20260310T120000Z-abc123  1m15s  requests 250  429s 1  waited 40s',
      '  stream                                rows  requests   rate  time left',
      '  inboxes                                  2         1    <1%  done',
      '  conversations+contacts+messages       1200       240    80%  ~3m00s',
      '  reports                                  -         -      -  pending',
      '  rate: its share of the budget (300 per 60s window) in the windows it ran in',
      "  time left: its requests left at the run's pace, known waits included",
    ]);
    for (const line of lines) expect(line.length).toBeLessThan(80);
  });

  it('says what holds every request: a 429 pause and when it ends, or the wait for the rate window', () => {
    expect(progressLines({ ...progress([stream()]), paused_ms_left: 42_000 })[1]).toBe(
      '  paused by a 429: resumes in 42s',
    );
    expect(waitLine({ ...progress([]), waiting_for_window: { left_ms: 23_000 } })).toBe(
      'waiting for the rate window: resumes in ~23s',
    );
    expect(waitLine({ ...progress([]), waiting_for_window: {} })).toBe('waiting for the rate window');
    expect(waitLine(progress([]))).toBeUndefined();
  });

  it('elsewhere, one line: the header, the running stream, the wait', () => {
    expect(progressLine({ ...progress([stream()]), paused_ms_left: 42_000 })).toBe(
      'sync 20260310T120000Z-abc123  1m15s  requests 250  429s 1  waited 40s; ' +
        'conversations+contacts+messages rows 1200, time left ~3m42s; paused by a 429: resumes in 42s',
    );
  });

  it('says how long a server that keeps answering 429 has been waited for', () => {
    const [, wait] = progressLines({ ...progress([stream()]), paused_ms_left: 4_000, rate_limited_for_ms: 95_000 });
    expect(wait).toBe('  paused by a 429: resumes in 4s (429s in a row for 1m35s)');
  });
});

/** A tracker over one planned stream, its requests read from `stats`, windows of `windowMs` from the run's start at 0. */
function trackOne(
  name: string,
  windowMs: number,
  stats: RequestStats,
): { tracker: ProgressTracker; planned: PlannedStream } {
  const planned = { names: [name] } as unknown as PlannedStream;
  const tracker = new ProgressTracker(
    [planned],
    '20261128T103634Z-7spng8',
    0,
    300,
    () => ({ ...stats }),
    () => windowMs,
  );
  return { tracker, planned };
}

const rateOf = (p: SyncProgress) => /\s(\S+)\s+\S+$/.exec(progressLines(p)[2] ?? '')?.[1];

describe('the rate column: a share of the budget of the windows the stream ran in', () => {
  it('a stream of about a second that spent 124 requests of a 300 per 60 s window reads 41%, not 1984%', () => {
    // The case met on a terminal: reports, 124 requests in 1.25 s at the end of a run's first window.
    const stats: RequestStats = { requests: 10, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
    const { tracker, planned } = trackOne('reports', 60_000, stats);
    tracker.start(planned, 40_000);
    stats.requests = 134;
    tracker.finish(planned, 'done', 41_250);
    const p = tracker.snapshot(41_250);
    expect(p.streams[0]).toMatchObject({ requests: 124, elapsed_ms: 1_250, budget_requests: 300 });
    expect(rateOf(p)).toBe('41%');
  });

  it('a stream that spans two windows is measured against both', () => {
    const stats: RequestStats = { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
    const { tracker, planned } = trackOne('conversations+contacts+messages', 60_000, stats);
    tracker.start(planned, 50_000);
    stats.requests = 450;
    const p = tracker.snapshot(70_000);
    expect(p.streams[0]?.budget_requests).toBe(600);
    expect(rateOf(p)).toBe('75%');
    // Windows the server learned to be 3 s: 15 a window at 300 a minute.
    expect(progressLines({ ...p, rate_window_ms: 3_000 }).at(-2)).toBe(
      '  rate: its share of the budget (15 per 3s window) in the windows it ran in',
    );
  });

  it('a stream that spent more than the windows counted from the run start allow ran in one window more: it is counted', () => {
    // The server's windows open at a request, so they lie at or after the run-start edges: 330
    // requests between 55 s and 59 s were two windows' share (the first window opened late).
    const stats: RequestStats = { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
    const { tracker, planned } = trackOne('conversations+contacts+messages', 60_000, stats);
    tracker.start(planned, 55_000);
    stats.requests = 330;
    const p = tracker.snapshot(59_000);
    expect(p.streams[0]?.budget_requests).toBe(600);
    expect(rateOf(p)).toBe('55%');
  });

  it('a share above the whole budget is said as it is, not clipped to 100%', () => {
    expect(budgetShare(stream({ requests: 330, budget_requests: 300 }))).toBe('110%');
  });
});

function sink() {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { out, chunks };
}

describe('createProgressReporter', () => {
  it('on a terminal draws the block in the live display, and erases it when done', () => {
    const frames: string[][] = [];
    let closed = 0;
    const reporter = createProgressReporter({
      live: { draw: (l) => frames.push([...l]), above: () => undefined, close: () => closed++ },
      logger: pino({ level: 'silent' }),
    });
    reporter.update(progress([stream()]));
    reporter.update(progress([stream({ rows: 1300 })]));
    reporter.done();
    reporter.done();
    reporter.update(progress([stream({ rows: 9999 })]));
    expect(frames).toHaveLength(2);
    expect(frames[1]?.join('\n')).toContain(' 1300 ');
    expect(closed).toBe(1);
  });

  it('elsewhere prints one line and logs a structured progress event at the start, then every logEveryMs', () => {
    const { out, chunks } = sink();
    const printed: string[] = [];
    let t = 0;
    const reporter = createProgressReporter({
      print: (s: string) => printed.push(s),
      logger: pino({ level: 'info' }, out),
      logEveryMs: 10_000,
      clock: { now: () => t },
    });
    for (t = 0; t <= 25_000; t += 1_000) reporter.update(progress([stream()]));
    const events = chunks.map((c) => JSON.parse(c));
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ event: 'sync.progress', progress: { run_id: '20260310T120000Z-abc123' } });
    expect(printed).toHaveLength(3);
    expect(printed[0]).toMatch(/^sync 20260310T120000Z-abc123 .*\n$/);
  });
});
