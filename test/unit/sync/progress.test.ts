import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { budgetShare, createProgressReporter, eta, progressLines } from '../../../src/sync/progress.js';
import type { StreamProgress, SyncProgress } from '../../../src/sync/run-sync.js';

const stream = (over: Partial<StreamProgress> = {}): StreamProgress => ({
  stream: 'conversations+contacts+messages',
  status: 'running',
  rows: 1200,
  requests: 240,
  elapsed_ms: 60_000,
  remaining_requests: 600,
  ...over,
});

const progress = (streams: StreamProgress[]): SyncProgress => ({
  run_id: '20260310T120000Z-abc123',
  elapsed_ms: 75_000,
  requests_per_minute: 300,
  requests: 250,
  rate_limited: 1,
  waited_ms: 40_000,
  streams,
});

describe('progress figures', () => {
  it('budget share = requests ÷ what the configured rate allowed while the stream ran', () => {
    expect(budgetShare(stream(), 300)).toBe('80%');
    expect(budgetShare(stream({ requests: 300 }), 300)).toBe('100%');
    expect(budgetShare(stream({ elapsed_ms: 500 }), 300)).toBe('-');
  });

  it('a recent-first backfill gets a line of its own: conversations read of the total, time left at the pace', () => {
    const p = progress([stream()]);
    expect(progressLines(p)).toHaveLength(2);
    p.backfill = { status: 'running', done: 3000, total: 10_000, eta_ms: 1_400_000 };
    expect(progressLines(p)[2]).toMatch(/^ {2}backfill +3000 of 10000 conversations read {2}eta ~23m20s$/);
    p.backfill = { status: 'complete', done: 10_000, total: 10_000 };
    expect(progressLines(p)[2]).toMatch(/10000 of 10000 conversations read {2}complete$/);
  });

  it('ETA = remaining requests ÷ rate; unknown when the stream cannot tell; the status once it stopped', () => {
    expect(eta(stream(), 300)).toBe('eta ~2m00s');
    expect(eta(stream({ remaining_requests: 5 }), 300)).toBe('eta ~1s');
    expect(eta(stream({ remaining_requests: undefined }), 300)).toBe('eta ?');
    expect(eta(stream({ status: 'done' }), 300)).toBe('done');
    expect(eta(stream({ status: 'skipped' }), 300)).toBe('skipped');
  });

  it('one header line and one line per stream', () => {
    const lines = progressLines(
      progress([stream({ stream: 'inboxes', status: 'done', rows: 2, requests: 1 }), stream()]),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('sync 20260310T120000Z-abc123  1m15s  requests 250  429s 1  waited 40s');
    expect(lines[1]).toMatch(/^ {2}inboxes +rows 2 +req 1 +budget 0% +done$/);
    expect(lines[2]).toMatch(/rows 1200 +req 240 +budget 80% +eta ~2m00s$/);
  });

  it('says while a 429 pause holds every request, and when it ends', () => {
    const [header] = progressLines({ ...progress([stream()]), paused_ms_left: 42_000 });
    expect(header).toBe(
      'sync 20260310T120000Z-abc123  1m15s  requests 250  429s 1  waited 40s  paused by a 429: resumes in 42s',
    );
  });

  it('says how long a server that keeps answering 429 has been waited for', () => {
    const [header] = progressLines({ ...progress([stream()]), paused_ms_left: 4_000, rate_limited_for_ms: 95_000 });
    expect(header).toBe(
      'sync 20260310T120000Z-abc123  1m15s  requests 250  429s 1  waited 40s  paused by a 429: resumes in 4s' +
        '  (429s in a row for 1m35s)',
    );
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
  it('on a TTY rewrites its lines in place', () => {
    const writes: string[] = [];
    const reporter = createProgressReporter({
      stream: { isTTY: true, write: (t: string) => writes.push(t) },
      logger: pino({ level: 'silent' }),
    });
    reporter.update(progress([stream()]));
    reporter.update(progress([stream({ rows: 1300 })]));
    reporter.done();
    reporter.update(progress([stream({ rows: 9999 })]));
    expect(writes).toHaveLength(2);
    expect(writes[0]?.startsWith('\x1b[2K')).toBe(true);
    expect(writes[1]?.startsWith('\x1b[2A\x1b[2K')).toBe(true);
    expect(writes[1]).toContain('rows 1300');
  });

  it('elsewhere logs a structured progress event at most every logEveryMs, and writes nothing to stdout', () => {
    const { out, chunks } = sink();
    const writes: string[] = [];
    let t = 0;
    const reporter = createProgressReporter({
      stream: { isTTY: false, write: (s: string) => writes.push(s) },
      logger: pino({ level: 'info' }, out),
      logEveryMs: 10_000,
      clock: { now: () => t },
    });
    for (t = 0; t <= 25_000; t += 1_000) reporter.update(progress([stream()]));
    const events = chunks.map((c) => JSON.parse(c));
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ event: 'sync.progress', progress: { run_id: '20260310T120000Z-abc123' } });
    expect(writes).toEqual([]);
  });
});
