import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { registerSecret } from '../../../src/redact.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, destination };
}

const TOKEN = 'pat_log_TEST_9f8e7d6c5b4a';

afterEach(() => {
  delete process.env.LOG_LEVEL;
});

describe('createLogger', () => {
  it('redacts tokens by path and by value, in messages, fields, nested objects and errors', () => {
    registerSecret(TOKEN);
    const { lines, destination } = capture();
    const log = createLogger({ destination, level: 'info' });
    log.info({ source: { token: TOKEN }, headers: { authorization: `Bearer ${TOKEN}` } }, 'plain');
    log.info(`message carrying ${TOKEN}`);
    log.info({ detail: { deep: [`url?token=${TOKEN}`] } }, 'nested');
    log.error({ err: new Error(`failed with ${TOKEN}`) }, 'error');
    const text = lines.join('');
    expect(lines).toHaveLength(4);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('[REDACTED]');
    expect(JSON.parse(lines[1]!).msg).toBe('message carrying [REDACTED]');
  });

  it('lets LOG_LEVEL override the configured level', () => {
    process.env.LOG_LEVEL = 'debug';
    expect(createLogger({ destination: capture().destination, level: 'warn' }).level).toBe('debug');
    delete process.env.LOG_LEVEL;
    expect(createLogger({ destination: capture().destination, level: 'warn' }).level).toBe('warn');
  });
});

describe('log formats', () => {
  it('human: warnings and errors as one short line each; info and the structured payload stay out', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', format: 'human', writeLine: (l) => lines.push(l) });
    log.info({ event: 'sync.summary', summary: { tables: {} } }, 'sync finished');
    log.child({ stream: 'reports' }).warn({ code: 'REPORTS_BACKFILL_LARGE' }, 'many report requests');
    log.warn({ pause_ms: 39_000, url: 'http://x/v1/me' }, 'rate limited (429): pausing every request');
    log.error({ err: Object.assign(new Error('boom'), { code: 'API_SERVER' }) }, 'stream conversations failed');
    expect(lines).toEqual([
      'warning [reports]: many report requests (REPORTS_BACKFILL_LARGE)',
      'warning: rate limited (429): pausing every request for 39s',
      'error: stream conversations failed: [API_SERVER] boom',
    ]);
  });

  it("human: a run's manifest and summary events, and the daemon's accounts event, are for the JSON form only", () => {
    const human: string[] = [];
    const json: string[] = [];
    for (const [format, out] of [
      ['human', human],
      ['json', json],
    ] as const) {
      const log = createLogger({ level: 'info', format, humanLevel: 'info', writeLine: (l) => out.push(l) });
      log.info({ event: 'output.manifest', key: '_manifests/r.json' }, 'manifest written');
      log.info({ event: 'sync.summary', summary: {} }, 'sync finished');
      log.info({ event: 'load.manifest', run_id: 'r' }, 'manifest loaded');
      log.info({ event: 'load.summary', summary: {} }, 'load succeeded');
      log.info({ event: 'daemon.accounts', accounts: [] }, 'accounts: acme succeeded');
      log.info({ event: 'daemon.job_finished', outcome: 'succeeded' }, 'sync succeeded in 1m00s');
    }
    expect(human).toEqual(['info: sync succeeded in 1m00s']);
    expect(json).toHaveLength(6);
  });

  it('human with humanLevel info (the daemon) shows its info lines too; json passes every record whole', () => {
    const human: string[] = [];
    createLogger({ level: 'info', format: 'human', humanLevel: 'info', writeLine: (l) => human.push(l) }).info(
      'sync scheduled',
    );
    expect(human).toEqual(['info: sync scheduled']);
    const json: string[] = [];
    createLogger({ level: 'info', format: 'json', writeLine: (l) => json.push(l) }).info({ event: 'e' }, 'hello');
    expect(JSON.parse(json[0] as string)).toMatchObject({ level: 30, event: 'e', msg: 'hello' });
  });
});

describe('--log-file and the human form keep secrets out too', () => {
  it('the file gets every event as JSON, redacted; the human lines skip progress events and carry no token', () => {
    registerSecret(TOKEN);
    const dir = mkdtempSync(join(tmpdir(), 'hs-log-'));
    try {
      const file = join(dir, 'nested', 'run.log');
      const human: string[] = [];
      const log = createLogger({ level: 'info', format: 'human', file, writeLine: (l) => human.push(l) });
      log.info({ event: 'sync.progress', progress: { requests: 1 } }, 'sync progress');
      log.warn({ url: `https://h/v1/me?token=${TOKEN}` }, `request failed with ${TOKEN}`);
      log.error({ err: new Error(`failed with ${TOKEN}`) }, 'stream failed');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
        'sync progress',
        'request failed with [REDACTED]',
        'stream failed',
      ]);
      expect(JSON.parse(lines[2] as string).err.message).toBe('failed with [REDACTED]');
      expect(human).toEqual([
        'warning: request failed with [REDACTED]',
        'error: stream failed: failed with [REDACTED]',
      ]);
      expect(readFileSync(file, 'utf8') + human.join('')).not.toContain(TOKEN);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
