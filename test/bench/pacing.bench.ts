/**
 * Pacing benchmark (docs/operations.md: wall time ≤ 1.05 × requests ÷ allowed rate,
 * zero 429s when alone). Starts its own sandbox with a small fixed window
 * (60 requests per 6 s, the same rate as 600/min) and sends every request at
 * once, so the queue alone decides when each goes out.
 *
 *   npm run bench -- pacing [--requests=180] [--scenario=alone|shared|all]
 *
 * "alone": the ratio of actual to ideal time, and the 429 count (target ≤ 1.05, 0).
 * "shared": another client on the IP spends half the budget; prints the share of
 * what it leaves that we used, and the 429s of both (informational).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiClient } from '../../src/api/create-api-client.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { startCompetingClient } from '../integration/api/competing-client.js';

const LIMIT = 60;
const WINDOW_S = 6;
const RATE_PER_S = LIMIT / WINDOW_S;
const TARGET_RATIO = 1.05;

interface Row {
  scenario: string;
  requests: number;
  idealS: number;
  actualS: number;
  ratio: number;
  ours429: number;
  all429: number;
}

function option(args: string[], name: string, fallback: string): string {
  const hit = args.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}

async function scenario(name: 'alone' | 'shared', requests: number): Promise<Row> {
  const sandbox = await startSandbox({ rateLimit: LIMIT, rateWindowSeconds: WINDOW_S, conversations: 20 });
  const client = createApiClient({
    baseUrl: sandbox.baseUrl,
    token: 'sandbox-admin',
    requestsPerMinute: RATE_PER_S * 60,
    rateWindowSeconds: WINDOW_S,
  });
  const other = name === 'shared' ? startCompetingClient(sandbox.baseUrl, 1000 / (RATE_PER_S * 0.5)) : undefined;
  try {
    if (other) await sleep(1_000);
    const started = performance.now();
    await Promise.all(Array.from({ length: requests }, () => client.api.me()));
    const actualS = (performance.now() - started) / 1000;
    await other?.stop();
    // Alone, the whole budget is ours; shared, what the other client leaves.
    const idealS = requests / (name === 'alone' ? RATE_PER_S : RATE_PER_S / 2);
    const stats = sandbox.stats();
    return {
      scenario: name,
      requests,
      idealS,
      actualS,
      ratio: actualS / idealS,
      ours429: client.stats().rateLimited,
      all429: stats.by_status['429'] ?? 0,
    };
  } finally {
    await other?.stop();
    client.close();
    await sandbox.close();
  }
}

function print(rows: Row[]): void {
  const header = ['scenario', 'requests', 'ideal_s', 'actual_s', 'ratio', '429_ours', '429_ip'];
  const lines = rows.map((r) => [
    r.scenario,
    String(r.requests),
    r.idealS.toFixed(2),
    r.actualS.toFixed(2),
    r.ratio.toFixed(3),
    String(r.ours429),
    String(r.all429),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  for (const line of [header, ...lines]) {
    process.stdout.write(`${line.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ')}\n`);
  }
}

export default async function pacingBench(args: string[]): Promise<void> {
  const requests = Number(option(args, 'requests', '180'));
  if (!Number.isInteger(requests) || requests < 1) throw new Error(`--requests must be a whole number from 1 up`);
  const which = option(args, 'scenario', 'all');
  process.stdout.write(
    `sandbox limit ${LIMIT} per ${WINDOW_S} s (${RATE_PER_S * 60}/min); client requests_per_minute ${RATE_PER_S * 60}\n`,
  );
  const rows: Row[] = [];
  if (which === 'alone' || which === 'all') rows.push(await scenario('alone', requests));
  if (which === 'shared' || which === 'all') rows.push(await scenario('shared', Math.ceil(requests / 2)));
  print(rows);
  const alone = rows.find((r) => r.scenario === 'alone');
  if (alone) {
    const ok = alone.ratio <= TARGET_RATIO && alone.all429 === 0;
    process.stdout.write(
      `pacing ratio ${alone.ratio.toFixed(3)} (target ≤ ${TARGET_RATIO}), 429s alone: ${alone.all429} (target 0): ${ok ? 'PASS' : 'MISS'}\n`,
    );
    if (!ok) throw new Error(`pacing target missed: ratio ${alone.ratio.toFixed(3)}, ${alone.all429} 429s`);
  }
}
