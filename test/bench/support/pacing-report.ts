/**
 * Rows, printing and judging of the pacing benchmark (test/bench/pacing.bench.ts):
 * each scenario is a row of helpdesk-sync ("ours") beside the naive peer, with
 * its yardstick and the targets it is judged by.
 */
export const KINDS = ['ours', 'peer'] as const;
export type Kind = (typeof KINDS)[number];

/** The target a row is judged by unless it names its own. */
export const DEFAULT_TARGET = { ratio: 1.05, max429: 0 };

export interface Side {
  wall_s: number;
  ratio: number;
  /** HTTP attempts, 429s included (per run). */
  requests: number;
  /** 429s, summed over the runs. */
  rate_limited: number;
  /** Of those, 429s met by probes after a 429 that said nothing. */
  probe_429s?: number;
  /** Of those, 429s met while the window's length was not known yet (learning it). */
  learning_429s?: number;
  /**
   * Run-to-run noise of a scenario run in rounds: the median of its runs less the
   * best. A difference smaller than this is not a difference the bench can see.
   */
  spread_s?: number;
}

export interface Row {
  scenario: string;
  window_s: number;
  limit: number;
  /** Requests the work needs (429s not counted). */
  n: number;
  /** The yardstick: the fixed-window optimum, or (silent 429s) the same run without them. */
  optimum_s: number;
  ours: Side;
  peer: Side;
  requests_per_minimum?: number;
  /**
   * Targets of ours: at most `ratio` × optimum_s (or, with `wall_s`, at most that
   * many seconds), never slower than the peer, at most `max429` 429s (none: any
   * number). Default: DEFAULT_TARGET. `againstPeer: false`: the peer ran beside ours at the
   * same time (it takes what it can), so ours is not judged against its time. `maxLearning429`:
   * at most that many of ours met while the window was being learned.
   */
  target?: {
    ratio?: number;
    wall_s?: number;
    max429?: number;
    maxLearning429?: number;
    againstPeer?: boolean;
    /** false: the time is printed, not judged (see the scenario's own comment for why). */
    timed?: boolean;
  };
  [extra: string]: unknown;
}

/** The best and the median less the best of a scenario's runs, in ms. */
export function bestAndSpread(runsMs: number[]): { best: number; spread: number } {
  const sorted = [...runsMs].sort((a, b) => a - b);
  const best = sorted[0] as number;
  return { best, spread: (sorted[Math.floor(sorted.length / 2)] as number) - best };
}

export function side(wallMs: number, optimum: number, requests: number, rateLimited: number): Side {
  const wall = wallMs / 1000;
  return { wall_s: wall, ratio: wall / optimum, requests, rate_limited: rateLimited };
}

/** Whole windows waited for, and the requests left for the last one. */
export function windowsOf(n: number, share: number): { waits: number; last: number } {
  const waits = Math.max(0, Math.ceil(n / share) - 1);
  return { waits, last: n - waits * share };
}

export function print(rows: Row[]): void {
  const header = [
    'scenario',
    'window',
    'limit',
    'N',
    'optimum_s',
    'ours_s',
    'ours÷opt',
    'ours_429',
    'peer_s',
    'peer÷opt',
    'peer_429',
    'noise_s',
    'req÷min',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    `${r.window_s} s`,
    String(r.limit),
    String(r.n),
    r.optimum_s.toFixed(2),
    r.ours.wall_s.toFixed(2),
    r.ours.ratio.toFixed(3),
    ours429(r.ours),
    r.peer.wall_s.toFixed(2),
    r.peer.ratio.toFixed(3),
    String(r.peer.rate_limited),
    noiseOf(r) === 0 ? '–' : noiseOf(r).toFixed(3),
    r.requests_per_minimum === undefined ? '–' : r.requests_per_minimum.toFixed(3),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  for (const line of [header, ...lines]) {
    process.stdout.write(`${line.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ')}\n`);
  }
}

/** Ours' 429s, with those of probes and those met while the window was learned when there were any. */
function ours429(side: Side): string {
  const parts = [
    side.probe_429s ? `${side.probe_429s} probes` : '',
    side.learning_429s ? `${side.learning_429s} learning` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `${side.rate_limited} (${parts.join(', ')})` : String(side.rate_limited);
}

/** The larger run-to-run noise of the two sides (0 for scenarios run once). */
function noiseOf(row: Row): number {
  return Math.max(row.ours.spread_s ?? 0, row.peer.spread_s ?? 0);
}

/**
 * Targets missed by a row alone on its IP: slower than its target or than the
 * peer, or more 429s than it allows. A time over its target by less than the
 * scenario's noise is not a miss the bench can show: it is listed apart, as
 * within noise. Every target is also printed with its verdict.
 */
export function judge(row: Row): { misses: string[]; withinNoise: string[] } {
  const misses: string[] = [];
  const withinNoise: string[] = [];
  const name = `${row.scenario} @ ${row.window_s} s`;
  const noise = noiseOf(row);
  const noiseMs = `${(noise * 1000).toFixed(1)} ms`;
  const target = { ...DEFAULT_TARGET, ...row.target };
  const over = (wall: number, limit: number, what: string) => {
    const verdict = wall <= limit ? 'PASS' : wall - limit > noise ? 'FAIL' : 'PASS (within noise)';
    process.stdout.write(`${verdict.padEnd(19)} ${name}: ${what}\n`);
    if (wall <= limit) return;
    if (wall - limit > noise) misses.push(`${name}: ${what}`);
    else
      withinNoise.push(`${name}: ${what}, by ${((wall - limit) * 1000).toFixed(1)} ms, within the noise of ${noiseMs}`);
  };
  if (target.timed === false) {
    process.stdout.write(`${'INFO'.padEnd(19)} ${name}: ${row.ours.ratio.toFixed(3)} × optimum (not judged)\n`);
  } else if (row.target?.wall_s !== undefined) {
    over(
      row.ours.wall_s,
      row.target.wall_s,
      `${row.ours.wall_s.toFixed(2)} s (target ≤ ${row.target.wall_s.toFixed(2)} s)`,
    );
  } else {
    over(
      row.ours.wall_s,
      target.ratio * row.optimum_s,
      `${row.ours.ratio.toFixed(3)} × optimum (target ≤ ${target.ratio})`,
    );
  }
  if (target.againstPeer !== false) {
    over(
      row.ours.wall_s,
      row.peer.wall_s,
      `${(row.ours.wall_s / row.peer.wall_s).toFixed(3)} × the peer's time (target ≤ 1)`,
    );
  }
  if (target.max429 !== undefined) {
    const ok = row.ours.rate_limited <= target.max429;
    const where = target.againstPeer === false ? 'beside the peer' : 'alone';
    const what = `${row.ours.rate_limited} 429s ${where} (target ≤ ${target.max429})`;
    process.stdout.write(`${(ok ? 'PASS' : 'FAIL').padEnd(19)} ${name}: ${what}\n`);
    if (!ok) misses.push(`${name}: ${what}`);
  }
  if (target.maxLearning429 !== undefined) {
    const learning = row.ours.learning_429s ?? 0;
    const ok = learning <= target.maxLearning429;
    const what = `${learning} 429s while the window was learned (target ≤ ${target.maxLearning429})`;
    process.stdout.write(`${(ok ? 'PASS' : 'FAIL').padEnd(19)} ${name}: ${what}\n`);
    if (!ok) misses.push(`${name}: ${what}`);
  }
  return { misses, withinNoise };
}
