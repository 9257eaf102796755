import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The real entry point, built, as a user runs the binary.
const FIXTURE = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(args: string[]) {
  const child = spawn(process.execPath, [FIXTURE, 'sandbox', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function waitFor(test: () => RegExpMatchArray | null, exited: Promise<unknown>): Promise<RegExpMatchArray> {
  let done = false;
  void exited.then(() => {
    done = true;
  });
  for (;;) {
    const match = test();
    if (match) return match;
    if (done) throw new Error('the process ended first');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('helpdesk-sync sandbox', () => {
  it('prints the base URL and tokens, serves requests, and stops cleanly on SIGTERM', async () => {
    const proc = run([
      '--port',
      '0',
      '--seed',
      '3',
      '--conversations',
      '120',
      '--rate-limit',
      '50',
      '--rate-window',
      '5',
    ]);
    const [, baseUrl] = await waitFor(
      // Both lines are printed together, but may reach us in separate chunks.
      () =>
        /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\s+Tokens: sandbox-admin, sandbox-agent, sandbox-partner/.exec(
          proc.out(),
        ),
      proc.exited,
    );
    const res = await fetch(`${baseUrl}/me`, { headers: { authorization: 'Bearer sandbox-admin' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('50');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.out()).toContain('SIGTERM: stopping the sandbox');
  });

  it('stops cleanly on SIGINT too', async () => {
    const proc = run(['--port', '0', '--conversations', '10']);
    await waitFor(() => /listening on/.exec(proc.out()), proc.exited);
    proc.child.kill('SIGINT');
    expect(await proc.exited).toBe(0);
  });

  it('serves several organizations with --organizations and names their tokens', async () => {
    const proc = run(['--port', '0', '--seed', '2', '--organizations', '30,20,10']);
    const [, baseUrl] = await waitFor(
      () => /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)[\s\S]*Stats:/.exec(proc.out()),
      proc.exited,
    );
    expect(proc.out()).toContain(
      'Organizations: acme 30 (acme-admin, acme-agent); globex 20 (globex-admin, globex-agent); initech 10 (initech-admin, initech-agent)\n',
    );
    const res = await fetch(`${baseUrl}/search`, {
      method: 'POST',
      headers: { authorization: 'Bearer initech-agent', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { data: { conversations: { meta: { total: number } } } }).data.conversations.meta.total,
    ).toBe(10);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  });

  it('exits 64 with a clear message for bad flag values', async () => {
    for (const [args, message] of [
      [['--port', 'abc'], '--port: expected a whole number from 0 to 65535, got "abc"'],
      [['--rate-limit', '0'], '--rate-limit: expected a whole number from 1 up'],
      [['--faults', '500:3'], '--faults: fault "500:3": probability must be a number from 0 to 1'],
      [['--conversations', '-1'], '--conversations: expected a whole number'],
      [
        ['--conversations', '100', '--organizations', '80,20'],
        '--conversations and --organizations do not combine: use --organizations alone',
      ],
      [
        ['--organizations', '1,2,3,4,5,6,7,8,9'],
        '--organizations: at most 8 organizations (acme, globex, initech, umbrella, hooli, soylent, tyrell, massive), got 9',
      ],
      [['--organizations', '100,x'], '--organizations: organization 2: expected a whole number from 0 up, got "x"'],
      [
        ['--quirks', 'trash-hidden,sloppy'],
        '--quirks: unknown quirk "sloppy"; valid quirks: trash-hidden, created-at-ties, loose-types, volatile-views, newest-first, invitations-without-id, forbidden-threads, proxy-html-errors, bare-429, search-cap, no-rate-headers, silent-429',
      ],
    ] as const) {
      const proc = run([...args]);
      expect(await proc.exited).toBe(64);
      // Off a terminal the logs are JSON: the usage error is a command.failed line with its message.
      const failed = JSON.parse(proc.err().trimEnd().split('\n').at(-1) ?? '') as Record<string, unknown>;
      expect(failed).toMatchObject({ event: 'command.failed', code: 'USAGE', exit_code: 64 });
      expect(failed.message).toContain(message);
    }
  });
});
