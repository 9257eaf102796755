import { expect } from 'vitest';
import { runCli } from './cli-run.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text format (one sample a line; `# ` lines are comments). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[key] = value;
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

export function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The address the daemon logged for its listener, once it has. */
export function listening(stderr: () => string): string | undefined {
  return /"event":"daemon\.metrics_listening","address":"([^"]+)"/.exec(stderr())?.[1];
}

export interface Scrape {
  /** /healthz just before /metrics was read. */
  health: number;
  healthBody: { status: string; reason: string };
  samples: Sample[];
  /** /healthz just after: runs go on between the requests, so a figure is judged against the health around it. */
  healthAfter: number;
  /** The status page at `/`, read after /metrics, when asked for. */
  page?: string;
}

export async function scrape(address: string, withPage = false): Promise<Scrape> {
  const health = await fetch(`http://${address}/healthz`);
  const healthBody = (await health.json()) as Scrape['healthBody'];
  const metrics = await fetch(`http://${address}/metrics`);
  expect(metrics.status).toBe(200);
  expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
  const samples = parseMetrics(await metrics.text());
  const page = withPage ? await (await fetch(`http://${address}/`)).text() : undefined;
  const after = await fetch(`http://${address}/healthz`);
  await after.body?.cancel();
  return { health: health.status, healthBody, samples, healthAfter: after.status, ...(page ? { page } : {}) };
}

/**
 * Runs the daemon until `done` says so for a scrape taken while it runs, then
 * stops it with SIGTERM; returns every scrape and the daemon's log. `withPage`:
 * each scrape reads the status page too.
 */
export async function runDaemon(config: string, done: (s: Scrape) => boolean, withPage = false) {
  const scrapes: Scrape[] = [];
  let stderr = '';
  const result = await runCli(['daemon', '--config', config], {
    onStart: (child) => {
      child.stderr?.on('data', (c) => {
        stderr += c;
      });
      const poll = async () => {
        const address = listening(() => stderr);
        if (address) {
          const s = await scrape(address, withPage);
          scrapes.push(s);
          if (done(s) || scrapes.length > 2000) {
            child.kill('SIGTERM');
            return;
          }
        }
        setTimeout(() => void poll().catch(() => child.kill('SIGKILL')), 100);
      };
      void poll();
    },
  });
  return { result, scrapes };
}
