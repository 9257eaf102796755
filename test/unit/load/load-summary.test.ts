import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLiveProgress } from '../../../src/live-progress.js';
import { type LoadProgress, loadProgressLine, loadProgressLines } from '../../../src/load/load-progress.js';
import { emptyTableCounts, formatLoadSummary, type LoadSummary } from '../../../src/load/load-summary.js';

const summary = (over: Partial<LoadSummary> = {}): LoadSummary => ({
  target: 'postgres://loader:***@db:5432/warehouse',
  target_origin: 'load.into',
  status: 'succeeded',
  started_at: '2026-03-10T12:00:00.000Z',
  finished_at: '2026-03-10T12:00:42.000Z',
  duration_ms: 42_000,
  manifests_loaded: 2,
  manifests_loaded_before: 5,
  manifests_pending: 0,
  tables: {
    ...emptyTableCounts(),
    conversations: { rows: 120, current: 3_000, errors: 0 },
    tags: { rows: 0, current: 24, errors: 1 },
  },
  ...over,
});

describe('load summary and progress', () => {
  it('the summary: one line, then loaded, current and refused rows of each table that has any', () => {
    expect(formatLoadSummary(summary())).toBe(
      [
        'load into postgres://loader:***@db:5432/warehouse (from load.into) succeeded in 42s: 2 manifests loaded, 5 loaded before',
        '  table             loaded    current   errors',
        '  conversations        120       3000        0',
        '  tags                   0         24        1',
        '  refused lines are in helpdesk_load_errors, with the reason',
      ].join('\n'),
    );
  });

  it('a failed load names the manifest it stopped at and what is still to load', () => {
    const text = formatLoadSummary(
      summary({
        status: 'failed',
        manifests_loaded: 1,
        manifests_pending: 3,
        failure: { run_id: '20260310T110000Z-abc123', code: 'LOAD_FAILED', message: 'a file is missing' },
      }),
    );
    expect(text.split('\n')[0]).toBe(
      'load into postgres://loader:***@db:5432/warehouse (from load.into) failed in 42s: 1 manifest loaded, 5 loaded before, 3 still to load',
    );
    expect(text).toContain('  manifest 20260310T110000Z-abc123 not loaded [LOAD_FAILED]: a file is missing');
  });

  it('progress: a block on a terminal; elsewhere a line and a load.progress event at the start and every 10 s', () => {
    const progress: LoadProgress = {
      target: 'duckdb:./helpdesk.duckdb',
      elapsed_ms: 75_000,
      manifests_done: 3,
      manifests_total: 10,
      run_id: '20260310T120000Z-abc123',
      table: 'messages',
      rows: 51_234,
    };
    expect(loadProgressLines(progress)).toEqual([
      'load  1m15s  manifests loaded 3 of 10  rows 51234',
      '  into duckdb:./helpdesk.duckdb',
      '  loading 20260310T120000Z-abc123: messages',
    ]);
    // A transaction of several manifests names its first and last.
    expect(loadProgressLines({ ...progress, last_run_id: '20260311T120000Z-def456' })[2]).toBe(
      '  loading 20260310T120000Z-abc123 … 20260311T120000Z-def456: messages',
    );
    const view = {
      render: loadProgressLines,
      line: loadProgressLine,
      event: 'load.progress',
      message: 'load progress',
    };
    const drawn: string[][] = [];
    const live = { draw: (l: readonly string[]) => drawn.push([...l]), above: () => undefined, close: () => undefined };
    const tty = createLiveProgress<LoadProgress>({ live, logger: pino({ level: 'silent' }) }, view);
    tty.update(progress);
    expect(drawn[0]?.[0]).toContain('manifests loaded 3 of 10');
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _encoding, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const printed: string[] = [];
    let t = 0;
    const logged = createLiveProgress<LoadProgress>(
      { logger: pino(sink), print: (text) => printed.push(text), clock: { now: () => t } },
      view,
    );
    for (t = 0; t <= 20_000; t += 5_000) logged.update(progress);
    expect(printed).toEqual(Array(3).fill(`${loadProgressLine(progress)}\n`));
    expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'load.progress', progress: { manifests_done: 3 } });
  });
});
