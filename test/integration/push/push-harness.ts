import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError, exitCodeFor } from '../../../src/cli/run-command.js';
import { parseConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/log.js';
import { withPushDeps } from '../../../src/push/push-job.js';
import { type ApplyOptions, type PlanOptions, runApply, runPlan } from '../../../src/push/run-push.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';

export interface CommandResult {
  code: number;
  output: string;
  error?: string;
}

/** A sandbox, a scratch directory holding the push files and the state, and the two commands. */
export interface PushHarness {
  sandbox: RunningSandbox;
  dir: string;
  inbox: Record<string, string>;
  writeFiles(files: { holidays?: string; businessHours?: string }): void;
  config(token?: string): Config;
  plan(options?: PlanOptions & { token?: string }): Promise<CommandResult>;
  apply(options?: ApplyOptions & { token?: string }): Promise<CommandResult>;
  /** GET on the sandbox as the admin. */
  get(path: string): Promise<unknown>;
  send(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Write requests (POST/PATCH/DELETE) to business hours and holidays seen by the sandbox so far. */
  writeRequests(): number;
  count(status: string): number;
  close(): Promise<void>;
}

async function capture(run: (out: (t: string) => void) => Promise<number>): Promise<CommandResult> {
  let output = '';
  try {
    const code = await run((t) => {
      output += t;
    });
    return { code, output };
  } catch (error) {
    return { code: exitCodeFor(error), output, error: describeError(error) };
  }
}

export async function startPushHarness(options: { faults?: string } = {}): Promise<PushHarness> {
  // The sandbox clock runs from a fixed date (so holiday statuses are known); the
  // rate limit is far above what these tests spend, so pacing never slows them.
  const started = Date.now();
  const sandbox = await startSandbox({
    seed: 5,
    conversations: 10,
    rateLimit: 100_000,
    faults: options.faults,
    now: () => new Date(Date.parse('2026-11-20T10:00:00Z') + (Date.now() - started)),
  });
  const dir = mkdtempSync(join(tmpdir(), 'push-'));
  const org = sandbox.store.world.organizations[0]!;
  const inbox = Object.fromEntries(sandbox.store.inboxes(org.id).map((i) => [i.name, i.id]));
  const files = { holidays: join(dir, 'holidays.yaml'), businessHours: join(dir, 'business-hours.yaml') };
  const config = (token = 'sandbox-admin') =>
    parseConfig(
      {
        source: { base_url: sandbox.baseUrl, token, rate_limit: { requests_per_minute: 6000, concurrency: 2 } },
        state: { path: join(dir, 'state.sqlite') },
        push: { holidays: files.holidays, business_hours: files.businessHours },
      },
      'test config',
      {},
    );
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: {
        authorization: 'Bearer sandbox-admin',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  return {
    sandbox,
    dir,
    inbox,
    writeFiles(content) {
      if (content.holidays !== undefined) writeFileSync(files.holidays, content.holidays);
      if (content.businessHours !== undefined) writeFileSync(files.businessHours, content.businessHours);
    },
    config,
    plan: ({ token, ...options } = {}) =>
      capture((out) =>
        withPushDeps(config(token), { logger: silentLogger(), out }, (deps) =>
          runPlan(config(token).push, deps, options),
        ),
      ),
    // apply writes state: under the run lock, as the command takes it (without it the state is only read).
    apply: ({ token, ...options } = {}) =>
      capture((out) =>
        withPushDeps(config(token), { logger: silentLogger(), out, lockAs: 'apply' }, (deps) =>
          runApply(config(token).push, deps, options),
        ),
      ),
    // Reads made by the test itself look past injected faults.
    async get(path) {
      for (let attempt = 0; ; attempt++) {
        const res = await send('GET', path).catch((error: unknown) => {
          if (attempt >= 20) throw error;
          return undefined;
        });
        if (res && (res.status === 200 || attempt >= 20)) return res.body;
      }
    },
    send,
    writeRequests() {
      return Object.entries(sandbox.stats().by_route)
        .filter(([route]) => /^(POST|PATCH|DELETE) \/v1\/(business-hours|holidays)/.test(route))
        .reduce((sum, [, byStatus]) => sum + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);
    },
    count: (status) => sandbox.stats().by_status[status] ?? 0,
    async close() {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
