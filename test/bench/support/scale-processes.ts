import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Share of the seeded conversations the admin token's search lists (the rest belong to the other organization). */
export const LISTED_SHARE = 0.8497;

/** What scale-child.mjs prints after each sync. */
export interface PeakMemory {
  rssMb: number;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
  arrayBuffersMb?: number;
  anonymousMb?: number;
  fileMb?: number;
  phase?: string;
}

/** The sampled peak as one phrase: what the RSS held when it was largest. */
export function describePeak(p: PeakMemory): string {
  const f = (n: number | undefined) => (n ?? 0).toFixed(0);
  return (
    `sampled peak ${f(p.rssMb)} MB during ${p.phase ?? '?'}: JS heap ${f(p.heapUsedMb)} of ${f(p.heapTotalMb)} MB, ` +
    `buffers ${f(p.arrayBuffersMb)} MB, anonymous ${f(p.anonymousMb)} MB, file-backed ${f(p.fileMb)} MB`
  );
}

export interface ChildResult {
  run: number;
  seconds: number;
  cpuSeconds: number;
  requests: number;
  rateLimited: number;
  scanned: number;
  fetched: number;
  rows: number;
  maxRssMb: number;
  peakHeapMb: number;
  /** The largest sampled RSS and what it was made of (scale-child.mjs). */
  peakMemory: PeakMemory;
  heapBytesPerConversation: number | null;
}

export interface SandboxProcess {
  baseUrl: string;
  /** `/v1` requests the sandbox answered so far, per route ("POST /v1/search"), any status. */
  requests(): Promise<Record<string, number>>;
  stop(): void;
}

/** A sandbox in a process of its own, rate limit lifted. */
export async function sandboxProcess(conversations: number): Promise<SandboxProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'sandbox',
      '--port',
      '0',
      '--conversations',
      String(conversations),
      '--rate-limit',
      '10000000',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c) => {
      out += c;
      const match = /listening on (\S+\/v1)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return {
    baseUrl,
    async requests() {
      const stats = (await (await fetch(`${new URL(baseUrl).origin}/_sandbox/stats`)).json()) as {
        by_route: Record<string, Record<string, number>>;
      };
      const out: Record<string, number> = {};
      for (const [route, byStatus] of Object.entries(stats.by_route)) {
        if (route.includes(' /v1/')) out[route] = Object.values(byStatus).reduce((a, b) => a + b, 0);
      }
      return out;
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** Requests per route between two counts, and their total. */
export function requestsBetween(before: Record<string, number>, after: Record<string, number>) {
  const byRoute: Record<string, number> = {};
  for (const [route, n] of Object.entries(after)) {
    const d = n - (before[route] ?? 0);
    if (d > 0) byRoute[route] = d;
  }
  return { total: Object.values(byRoute).reduce((a, b) => a + b, 0), byRoute };
}

export interface ChildOptions {
  gcTuning?: 'on' | 'off';
  heapSlope?: boolean;
  env?: Record<string, string>;
  /** Syncs in the one process; `between(i)` runs after sync i (1-based) before the next starts. */
  runs?: number;
  between?: (run: number, result: ChildResult) => Promise<void>;
}

/** Syncs in a child process on the built code (scale-child.mjs); one result per sync. */
export function syncChild(configPath: string, o: ChildOptions = {}): Promise<ChildResult[]> {
  const runs = o.runs ?? 1;
  const args = [
    ...(o.heapSlope ? ['--expose-gc'] : []),
    'test/bench/support/scale-child.mjs',
    configPath,
    `--runs=${runs}`,
  ];
  if (o.heapSlope) args.push('--heap-slope');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HELPDESK_SYNC_GC_TUNING: o.gcTuning ?? 'on', ...o.env },
    stdio: [runs > 1 ? 'pipe' : 'ignore', 'pipe', 'inherit'],
  });
  const results: ChildResult[] = [];
  let buffered = '';
  let chain = Promise.resolve();
  child.stdout?.on('data', (c) => {
    buffered += c;
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf('\n');
      if (!line.startsWith('{')) continue;
      const result = JSON.parse(line) as ChildResult;
      results.push(result);
      chain = chain.then(async () => {
        await o.between?.(result.run, result);
        if (result.run < runs) child.stdin?.write('go\n');
      });
    }
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? chain.then(() => resolve(results), reject) : reject(new Error(`sync child exit ${code}`)),
    ),
  );
}

/** A sync config (JSON file) for the bench: the sandbox's admin token, rate limit lifted, local output. */
export function writeConfig(
  dir: string,
  baseUrl: string,
  streams: string[],
  extra: Record<string, unknown> = {},
  name = 'config.json',
): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      source: {
        base_url: baseUrl,
        token: 'sandbox-admin',
        rate_limit: { requests_per_minute: 100_000, concurrency: 4 },
      },
      streams,
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state.sqlite') },
      log: { level: 'error' },
      ...extra,
    }),
  );
  return path;
}

/** The machine's load average (1, 5, 15 min) now, for the figures: the machine is shared. */
export function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');
}
