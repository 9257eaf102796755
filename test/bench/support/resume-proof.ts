import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PAGE_SIZE } from '../../../src/streams/conversations/conversation-listing.js';
import { compareDigests, digestOutput } from './output-digest.js';
import { loadAverage, ROOT, requestsBetween, type SandboxProcess, writeConfig } from './scale-processes.js';

const THREADS = 'GET /v1/conversation/:conversation_id/messages';
const LIST = 'POST /v1/search';
/** What a kill may cost at most: the page it was on, its list request and its threads. */
const PAGE_REQUESTS = 1 + PAGE_SIZE;

export interface ResumeFigures {
  output_equal: boolean;
  /** Requests of all the runs together beyond the uninterrupted run's. */
  overhead: number;
  /** The most `overhead` may be: one page per kill. */
  bound: number;
}

/** One `helpdesk-sync sync` (the built CLI), SIGKILLed once `killWhen` holds of the requests it made. */
async function cliSync(
  config: string,
  sandbox: SandboxProcess,
  killWhen?: (made: Record<string, number>) => boolean,
): Promise<{ signal: NodeJS.Signals | null; code: number | null }> {
  const before = await sandbox.requests();
  const child = spawn(process.execPath, ['dist/cli/main.js', 'sync', '--config', config], {
    cwd: ROOT,
    env: { ...process.env, HELPDESK_SYNC_GC_TUNING: 'on' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let polling = true;
  const poll = async () => {
    while (polling && killWhen) {
      const made = requestsBetween(before, await sandbox.requests()).byRoute;
      if (killWhen(made)) {
        child.kill('SIGKILL');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  void poll();
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      polling = false;
      resolve({ code, signal });
    }),
  );
}

/**
 * The resume proof (docs/performance.md › Resuming a first sync killed three times): the same first sync
 * as the reference run, but SIGKILLed when its thread requests reach each of
 * `at` (shares of the reference run's), each kill hitting the run that resumed
 * from the one before; then a run to the end. The merged output must equal the
 * reference run's per key, and the requests of all the runs together are
 * compared with the reference run's, per route.
 */
export async function resumeProof(o: {
  sandbox: SandboxProcess;
  dir: string;
  reference: { outDir: string; requests: { total: number; byRoute: Record<string, number> } };
  at: number[];
}): Promise<ResumeFigures & Record<string, unknown>> {
  const dir = join(o.dir, 'resumed');
  mkdirSync(dir, { recursive: true });
  const config = writeConfig(dir, o.sandbox.baseUrl, ['conversations', 'contacts', 'messages']);
  const threads = o.reference.requests.byRoute[THREADS] ?? 0;
  const start = await o.sandbox.requests();
  const kills: Array<{ at: number; threads: number }> = [];
  let sofar = 0;
  for (const share of o.at) {
    const target = Math.round(threads * share);
    const result = await cliSync(config, o.sandbox, (made) => sofar + (made[THREADS] ?? 0) >= target);
    const made = requestsBetween(start, await o.sandbox.requests());
    sofar = made.byRoute[THREADS] ?? 0;
    if (result.signal !== 'SIGKILL')
      throw new Error(`the run to be killed at ${share} ended first (exit ${result.code})`);
    kills.push({ at: share, threads: sofar });
    process.stdout.write(
      `  killed (SIGKILL) at ${(share * 100).toFixed(0)} % of the threads: ${sofar} thread requests so far\n`,
    );
  }
  const last = await cliSync(config, o.sandbox);
  if (last.code !== 0) throw new Error(`the last run exited ${last.code}`);
  const all = requestsBetween(start, await o.sandbox.requests());
  const extra: Record<string, number> = {};
  for (const route of new Set([...Object.keys(all.byRoute), ...Object.keys(o.reference.requests.byRoute)])) {
    extra[route] = (all.byRoute[route] ?? 0) - (o.reference.requests.byRoute[route] ?? 0);
  }
  const overhead = all.total - o.reference.requests.total;
  const bound = o.at.length * PAGE_REQUESTS;
  process.stdout.write(
    `  ${o.at.length} kills and a last run: ${all.total} requests for the uninterrupted run's ${o.reference.requests.total}` +
      ` (+${overhead}, at most +${bound}: list pages +${extra[LIST] ?? 0}, threads +${extra[THREADS] ?? 0}, other +${overhead - (extra[LIST] ?? 0) - (extra[THREADS] ?? 0)});` +
      ` load average ${loadAverage()}\n`,
  );
  await digestOutput(o.reference.outDir, join(o.dir, 'reference-digest.sqlite'));
  const rows = await digestOutput(join(dir, 'out'), join(o.dir, 'resumed-digest.sqlite'));
  const differences = compareDigests(join(o.dir, 'reference-digest.sqlite'), join(o.dir, 'resumed-digest.sqlite'));
  process.stdout.write(
    differences.length === 0
      ? `  merged output per key equals the uninterrupted run's (${rows.rows} rows read)\n`
      : `  merged output DIFFERS: ${JSON.stringify(differences)}\n`,
  );
  return {
    kills,
    requests: all.total,
    reference_requests: o.reference.requests.total,
    overhead,
    bound,
    extra_by_route: extra,
    output_equal: differences.length === 0,
    differences,
  };
}
