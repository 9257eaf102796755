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
