import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadRecords } from '../../../src/state/load-records.js';
import { runCli } from '../sync/cli-run.js';
import { type SyncEnv, startSyncEnv } from '../sync/support.js';
import { ConditionalS3Server } from './support/conditional-s3-server.js';

/**
 * The load records of a state kept in object storage: one object beside the state's key, which
 * every load (a real CLI process into a real DuckDB file) rewrites only over the version it read
 * (If-Match), so a load never drops another target's record, even when another writer changes the
 * object between its read and its write; the status page (`report --html`) reads them back.
 */
const STATE_KEY = 'state-bucket/loads/state.sqlite';
const RECORDS_KEY = `${STATE_KEY}.loads.json`;
const standin = new ConditionalS3Server();
let env: SyncEnv;
let dir: string;
let configPath: string;
const childEnv = () => ({
  AWS_ACCESS_KEY_ID: 'STANDIN',
  AWS_SECRET_ACCESS_KEY: 'STANDIN',
  AWS_EC2_METADATA_DISABLED: 'true',
  TMPDIR: dir,
});
const cli = async (...args: string[]) => {
  const result = await runCli([...args, '--config', configPath], { env: childEnv(), cwd: dir });
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result;
};
const records = () => JSON.parse(standin.get(RECORDS_KEY)?.body.toString('utf8') ?? '{}') as LoadRecords;

beforeAll(async () => {
  await standin.start();
  env = await startSyncEnv({ seed: 17, conversations: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hs-load-records-s3-'));
  configPath = env.configFile('load-records-s3.json', {
    source: { rate_limit: { requests_per_minute: 100000 } },
    reports: { lookback_days: 0 },
    state: {
      path: `s3://${STATE_KEY}`,
      s3: { endpoint: standin.endpoint, region: 'us-east-1', force_path_style: true },
    },
    load: { into: `duckdb:${join(dir, 'a.duckdb')}` },
  });
});
afterAll(async () => {
  await env?.sandbox.close();
  await standin.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (env) rmSync(env.dir, { recursive: true, force: true });
});

describe('load records beside a state in object storage', () => {
  it("each load replaces its own target's record over the version it read; the page reads them back", async () => {
    const a = `duckdb:${join(dir, 'a.duckdb')}`;
    const b = `duckdb:${join(dir, 'b.duckdb')}`;
    await cli('sync');
    await cli('load');
    expect(Object.keys(records())).toEqual([a]);
    expect(records()[a]).toMatchObject({ outcome: 'succeeded', manifests_loaded: 1, waiting: [] });
    expect(records()[a]!.rows).toBeGreaterThan(0);

    // The second load's write is held after its read; meanwhile another writer adds a record.
    const hold = standin.hold((method, key) => method === 'PUT' && key === RECORDS_KEY);
    const second = runCli(['load', '--into', b, '--config', configPath], { env: childEnv(), cwd: dir });
    await standin.waitForHeld(hold);
    const other = { ...records()[a]!, target: 'duckdb:/elsewhere.duckdb' };
    standin.put(RECORDS_KEY, JSON.stringify({ ...records(), [other.target]: other }));
    standin.release(hold);
    const loaded = await second;
    expect(loaded.code, loaded.stderr).toBe(0);
    // Its first write lost (412), it read again and wrote over the new version: no record dropped.
    const writes = standin.seen.filter((r) => r.method === 'PUT' && r.key === RECORDS_KEY).map((r) => r.status);
    expect(writes).toEqual([200, 412, 200]);
    expect(Object.keys(records()).sort()).toEqual([a, b, other.target].sort());
    expect(records()[b]).toMatchObject({ outcome: 'succeeded', manifests_loaded: 1 });

    // A second sync commits a manifest no load has loaded: the page, read from the bucket, says so.
    await cli('sync');
    const page = join(dir, 'status.html');
    await cli('report', '--html', page);
    const html = readFileSync(page, 'utf8');
    for (const target of [a, b]) expect(html, target).toContain(target);
    expect(html.match(/1 manifest, [^<]* behind/g)).toHaveLength(3);
    await cli('load');
    await cli('report', '--html', page);
    expect(readFileSync(page, 'utf8').match(/1 manifest, [^<]* behind/g)).toHaveLength(2);
    expect(records()[a]!.manifests_loaded).toBe(1);
  });
});
