import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../support/pty-screen.js';
import { type CliResult, runCli, runProcess } from './cli-run.js';
import { type SyncEnv, startSyncEnv } from './support.js';

/**
 * Logs for a collector: with `--log-format json`, every line a real CLI process writes to stderr
 * is one JSON object, a fatal error included (its `code` and `message`, no class name, no token),
 * and no human progress lands among them; the daemon's human log says one line per run.
 */
let env: SyncEnv;
const WRONG_TOKEN = 'pat_wrong_Js0nL0gs_7f3a';

beforeAll(async () => {
  env = await startSyncEnv({ seed: 44, conversations: 40 });
});
afterAll(async () => {
  await env?.close();
});

/** Every line of stderr parsed as JSON; a line that is not JSON fails the test, naming it. */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`a stderr line is not JSON: ${line}\n--- stderr:\n${stderr}`);
      }
    });
}

const configWith = (name: string, overrides: Record<string, unknown> = {}) =>
  env.configFile(name, { reports: { lookback_days: 0 }, ...overrides });

describe('--log-format json: every stderr line is JSON', () => {
  it('a bad token (401): the fatal error is one JSON line with its code and message, no class name, no token', async () => {
    const config = configWith('wrong-token.json', { source: { token: WRONG_TOKEN } });
    const run = await runCli(['sync', '--config', config, '--log-format', 'json']);
    expect(run.code, run.stderr).toBe(1);
    const lines = jsonLines(run.stderr);
    const fatal = lines.at(-1) as Record<string, unknown>;
    expect(fatal).toMatchObject({ level: 60, event: 'command.failed', code: 'API_UNAUTHORIZED', exit_code: 1 });
    expect(fatal.message).toMatch(/^GET \S+\/v1\/me failed with status 401/);
    expect(run.stderr).not.toContain('FatalApiError');
    expect(run.stderr + run.stdout).not.toContain(WRONG_TOKEN);
    // Nothing else: no progress line, no summary.
    expect(run.stdout).toBe('');
  });

  it('an invalid config (exit 64): one JSON line listing every problem by path', async () => {
    const config = join(env.dir, 'invalid.json');
    writeFileSync(config, JSON.stringify({ source: { base_url: 1 }, streams: ['nope'] }));
    const run = await runCli(['sync', '--config', config, '--log-format', 'json']);
    expect(run.code, run.stderr).toBe(64);
    const [line, ...rest] = jsonLines(run.stderr);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ event: 'command.failed', code: 'CONFIG_INVALID', exit_code: 64 });
    expect(((line?.issues ?? []) as Array<{ path: string }>).map((i) => i.path)).toEqual(
      expect.arrayContaining(['source.base_url', 'streams.0']),
    );
    expect(run.stderr).not.toContain('ConfigError');
  });

  it('a usage mistake commander finds (an unknown option): one JSON line, no help text', async () => {
    for (const args of [
      ['sync', '--bogus', '--log-format', 'json'],
      ['--log-format=json', 'sync', '--streams'],
    ]) {
      const run = await runCli(args);
      expect(run.code, run.stderr).toBe(64);
      const [line, ...rest] = jsonLines(run.stderr);
      expect(rest, args.join(' ')).toEqual([]);
      expect(line).toMatchObject({ level: 60, event: 'command.failed', code: 'USAGE', exit_code: 64 });
    }
    // In the human form, commander's own words and its help, as before.
    const human = await runCli(['sync', '--bogus', '--log-format', 'human']);
    expect(human.code).toBe(64);
    expect(human.stderr).toMatch(/^error: unknown option '--bogus'\n/);
  });

  it('a sync: progress is JSON events on stderr only; stdout carries the summary alone, after the last JSON line of 2>&1', async () => {
    const config = configWith('ok.json');
    const apart = await runCli(['sync', '--config', config, '--log-format', 'json']);
    expect(apart.code, apart.stderr).toBe(0);
    const events = jsonLines(apart.stderr).map((l) => l.event);
    expect(events).toContain('sync.progress');
    expect(events).toContain('sync.summary');
    expect(apart.stdout).toMatch(/^sync \S+ succeeded in \S+ \(manifest _manifests\/\S+\.json\)\n/);
    // The progress line of a run without a terminal (`sync <run>  <time>  requests …`) is not on stdout.
    expect(apart.stdout).not.toMatch(/^sync \S+ {2}\S+ {2}requests/m);

    // One stream for both, as a collector reading `2>&1` gets it: JSON lines, then the summary, never mixed.
    const both: CliResult = await runProcess('sh', [
      '-c',
      `"${process.execPath}" "${CLI}" sync --config "${config}" --log-format json 2>&1`,
    ]);
    expect(both.code, both.stdout).toBe(0);
    const lines = both.stdout.split('\n').filter(Boolean);
    const isJson = (line: string) => line.startsWith('{') && line.endsWith('}');
    const firstText = lines.findIndex((line) => !isJson(line));
    expect(firstText, both.stdout).toBeGreaterThan(0);
    expect(lines.slice(0, firstText).every(isJson), both.stdout).toBe(true);
    expect(lines.slice(firstText).some(isJson), both.stdout).toBe(false);
    expect(lines[firstText]).toMatch(/^sync \S+ succeeded in /);
  });

  it('a stop by SIGINT: the notice is a JSON line too', async () => {
    // A budget of 20 requests a minute: the run waits for the rate window, and is stopped there.
    const config = configWith('slow.json', { source: { rate_limit: { requests_per_minute: 20, concurrency: 2 } } });
    let stderr = '';
    const run = await runCli(['sync', '--config', config, '--log-format', 'json'], {
      onStart: (child) => {
        child.stderr?.on('data', (c) => {
          stderr += c;
          if (/"event":"sync\.progress"/.test(stderr) && !child.killed) child.kill('SIGINT');
        });
      },
    });
    expect(run.code, run.stderr).toBe(130);
    const lines = jsonLines(run.stderr);
    expect(lines.find((l) => l.event === 'command.signal')).toMatchObject({ signal: 'SIGINT', level: 40 });
    expect(lines.find((l) => l.event === 'sync.summary')).toMatchObject({ summary: { status: 'interrupted' } });
  });
});

describe('the daemon', () => {
  /** Runs the daemon every second until `runs` sync jobs have finished, then stops it. */
  async function daemonRuns(format: 'json' | 'human', runs: number): Promise<CliResult> {
    const config = configWith(`daemon-${format}.json`, { schedule: { sync: '* * * * * *' } });
    let stderr = '';
    const finished = format === 'json' ? /"event":"daemon\.job_finished"/g : /^info: sync \w+ in /gm;
    return runCli(['daemon', '--config', config, '--log-format', format], {
      onStart: (child) => {
        child.stderr?.on('data', (c) => {
          stderr += c;
          if ((stderr.match(finished) ?? []).length >= runs && !child.killed) child.kill('SIGTERM');
        });
      },
    });
  }

  it('logs JSON lines only, each run finished with its outcome, rows, requests and duration', async () => {
    const run = await daemonRuns('json', 2);
    expect(run.code, run.stderr).toBe(0);
    const finished = jsonLines(run.stderr).filter((l) => l.event === 'daemon.job_finished');
    expect(finished.length).toBeGreaterThanOrEqual(2);
    for (const line of finished) {
      expect(line).toMatchObject({ job: 'sync', outcome: 'succeeded' });
      expect(line.rows).toEqual(expect.any(Number));
      expect(line.requests).toEqual(expect.any(Number));
      expect(line.duration_ms).toEqual(expect.any(Number));
    }
    expect(run.stdout).toBe('');
  });

  it("a process warning (a dependency's process.emitWarning) is a JSON line too, not Node's text", async () => {
    // A module loaded before the CLI that warns on SIGUSR2, sent once the daemon is running.
    const warner = join(env.dir, 'warn-on-usr2.mjs');
    writeFileSync(
      warner,
      "process.on('SIGUSR2', () => process.emitWarning('a warning of a dependency', 'DependencyWarning'));\n",
    );
    const config = configWith('daemon-warning.json', { schedule: { sync: '0 0 1 1 *' } });
    let stderr = '';
    const run = await runCli(['daemon', '--config', config, '--log-format', 'json'], {
      env: { NODE_OPTIONS: `--import=${pathToFileURL(warner).href}` },
      onStart: (child) => {
        let warned = false;
        let stopped = false;
        child.stderr?.on('data', (c) => {
          stderr += c;
          if (!warned && stderr.includes('"event":"daemon.scheduled"')) {
            warned = true;
            child.kill('SIGUSR2');
          }
          if (!stopped && stderr.includes('"event":"process.warning"')) {
            stopped = true;
            child.kill('SIGTERM');
          }
        });
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonLines(run.stderr).find((l) => l.event === 'process.warning')).toMatchObject({
      level: 40,
      warning: 'DependencyWarning',
      message: 'a warning of a dependency',
    });
  });

  it('says one human line per run: outcome, duration, rows written, requests; no "sync finished" beside it', async () => {
    const run = await daemonRuns('human', 2);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter(Boolean);
    const runLines = lines.filter((l) => /^info: sync /.test(l) && !/scheduled/.test(l));
    expect(runLines.length, run.stderr).toBeGreaterThanOrEqual(2);
    for (const line of runLines) expect(line).toMatch(/^info: sync succeeded in \S+: \d+ rows written, \d+ requests$/);
    expect(
      lines.filter((l) => /sync finished|manifest written/.test(l)),
      run.stderr,
    ).toEqual([]);
  });
});
