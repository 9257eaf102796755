/**
 * Recent-first first sync (conversations.first_sync: recent_first) against a plain
 * first sync, both at the rate limit a user keeps (300 requests a minute, the API's
 * api.global default), on two copies of the same sandbox run side by side:
 *
 * - time until every conversation of the last 30 days is committed, recent-first;
 * - the same for a plain first sync (oldest first: the recent ones come last);
 * - each run's total time, and the recent-first run's overhead in requests.
 *
 * The connector's clock stands one day after the seeded data ends, so "the last 30
 * days" holds 30/365 of the conversations, as for an account with a year of history.
 *   npm run bench -- recent-first --recent-first-conversations=3000
 * Wall time is rate-bound: about (conversations + pages) ÷ 5 seconds per run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { SEED_END_MS } from '../../src/sandbox/seed/seed-window.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start.js';
import { createKvStore } from '../../src/state/kv-store.js';
import { SCOPES } from '../../src/streams/scopes.js';
import { syncJob } from '../../src/sync/sync-job.js';
import { numberOption } from './support/bench-option.js';

const RATE = 300;
const DAY = 86_400_000;
const RECENT_DAYS = 30;

interface RunFigures {
  seconds: number;
  recentCommittedSeconds: number;
  requests: number;
  conversations: number;
}

/** Ids of the admin organization's conversations created within the window ending at `nowMs`. */
function recentIds(sandbox: RunningSandbox, nowMs: number): Set<string> {
  const { store } = sandbox;
  const org = store.world.organizations[0]!.id;
  const ids = new Set<string>();
  for (let i = 0; i < store.table.count; i++) {
    if (store.table.createdAt[i]! < nowMs - RECENT_DAYS * DAY || !store.conversations.exists(i)) continue;
    const s = store.conversations.get(i);
    if (s.organizationId === org) ids.add(s.id);
  }
  return ids;
}

/** Conversations of `ids` the state holds as committed now. */
function committed(statePath: string, ids: Set<string>): number {
  let db: Database.Database;
  try {
    db = new Database(statePath, { readonly: true, fileMustExist: true });
  } catch {
    return 0;
  }
  try {
    const keys = [...createKvStore({ db }).keys(SCOPES.conversations)];
    return keys.filter((k) => ids.has(k)).length;
  } finally {
    db.close();
  }
}

async function firstSync(
  conversations: number,
  firstSync: 'full' | 'recent_first',
  nowMs: number,
): Promise<RunFigures> {
  const sandbox = await startSandbox({ port: 0, seed: 7, conversations, rateLimit: RATE, rateWindowSeconds: 60 });
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-recent-'));
  const statePath = join(dir, 'state.sqlite');
  try {
    const config = parseConfig(
      {
        source: { base_url: sandbox.baseUrl, token: 'sandbox-admin', rate_limit: { requests_per_minute: RATE } },
        conversations: { first_sync: firstSync, recent_days: RECENT_DAYS },
        destination: { type: 'local', path: join(dir, 'out') },
        state: { path: statePath },
      },
      'bench',
      {},
    );
    const recent = recentIds(sandbox, nowMs);
    const offset = Date.now() - nowMs;
    const started = performance.now();
    let recentAt: number | undefined;
    const watch = setInterval(() => {
      if (recentAt === undefined && committed(statePath, recent) === recent.size) recentAt = performance.now();
    }, 250);
    try {
      const { summary } = await syncJob(config, { logger: silentLogger(), clock: { now: () => Date.now() - offset } });
      const ended = performance.now();
      recentAt ??= committed(statePath, recent) === recent.size ? ended : Number.NaN;
      return {
        seconds: (ended - started) / 1000,
        recentCommittedSeconds: (recentAt - started) / 1000,
        requests: summary.requests.requests,
        conversations: summary.conversations_scanned,
      };
    } finally {
      clearInterval(watch);
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench(args: string[]): Promise<Record<string, unknown>> {
  const conversations = numberOption(args, 'recent-first-conversations', 3000);
  const nowMs = SEED_END_MS + DAY;
  process.stdout.write(
    `two first syncs of the same ${conversations}-conversation sandbox at ${RATE} requests/min, side by side ` +
      `(about ${Math.round((conversations * 0.85) / (RATE / 60) / 60)} min)…\n`,
  );
  const [plain, recent] = await Promise.all([
    firstSync(conversations, 'full', nowMs),
    firstSync(conversations, 'recent_first', nowMs),
  ]);
  const line = (name: string, f: RunFigures) =>
    `${name.padEnd(13)} last ${RECENT_DAYS} days committed after ${f.recentCommittedSeconds.toFixed(0)} s, ` +
    `whole first sync ${f.seconds.toFixed(0)} s, ${f.requests} requests\n`;
  process.stdout.write(line('full', plain));
  process.stdout.write(line('recent_first', recent));
  const speedup = plain.recentCommittedSeconds / recent.recentCommittedSeconds;
  process.stdout.write(
    `recent_first has the last ${RECENT_DAYS} days ${speedup.toFixed(1)}× sooner; its whole first sync costs ` +
      `${recent.requests - plain.requests} more requests (${(recent.seconds - plain.seconds).toFixed(0)} s)\n`,
  );
  return {
    conversations_seeded: conversations,
    requests_per_minute: RATE,
    full: plain,
    recent_first: recent,
    recent_window_speedup: Number(speedup.toFixed(2)),
  };
}
