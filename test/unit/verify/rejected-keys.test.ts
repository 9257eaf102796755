import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalSink } from '../../../src/output/sinks/local-sink.js';
import { readRejectedKeys } from '../../../src/verify/rejected-keys.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rejected-keys-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function rejectedFile(key: string, lines: string[]) {
  const path = join(dir, key);
  mkdirSync(dirname(path), { recursive: true });
  const bytes = gzipSync(`${lines.join('\n')}\n`);
  writeFileSync(path, bytes);
  return { key, table_name: key.split('/')[1]!, rows: lines.length, bytes: bytes.length };
}

describe('readRejectedKeys', () => {
  it('gives the keys of the rejected records that have one, per table, read exactly', async () => {
    const files = [
      rejectedFile('_rejected/conversations/dt=2026-01-01/r1-0001.jsonl.gz', [
        '{"_rejected_at":"t","_run_id":"r1","reason":"ticket_id: 18446744073709551621 is beyond what a signed 64-bit integer (BIGINT) holds","raw":{"id":"c1","ticket_id":18446744073709551621}}',
        '{"_rejected_at":"t","_run_id":"r1","reason":"missing primary key id","raw":{"subject":"no id"}}',
      ]),
      rejectedFile('_rejected/report_productivity_daily/dt=2026-01-01/r1-0002.jsonl.gz', [
        '{"_rejected_at":"t","_run_id":"r1","reason":"x","raw":{"inbox_id":"i1","date":"2026-01-02","avg_replies_to_resolution":9007199254740993}}',
      ]),
      rejectedFile('_rejected/no_such_table/dt=2026-01-01/r1-0003.jsonl.gz', ['{"raw":{"id":"z"}}']),
    ];
    const keys = await readRejectedKeys(createLocalSink({ root: dir }), files);
    expect(keys).toEqual(
      new Map([
        ['conversations', new Set(['c1'])],
        ['report_productivity_daily', new Set(['i1|2026-01-02'])],
      ]),
    );
  });
});
