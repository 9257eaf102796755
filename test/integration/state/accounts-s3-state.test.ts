import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { runCli } from '../sync/cli-run.js';
import { ConditionalS3Server } from './support/conditional-s3-server.js';

/**
 * Several accounts with their state in object storage (docs/accounts.md): each
 * account's state and its lock are objects under its own name beside the
 * configured key, its output under its own prefix in the bucket; a lock another
 * run holds on one account fails that account only (the others commit, exit 3).
 * The output goes to s3rver; the state to a stand-in that honours conditional
 * writes (the lock needs them, and s3rver ignores them).
 */

const awsEnv: Record<string, string> = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_EC2_METADATA_DISABLED: 'true',
};
const s3 = new S3TestServer();
const standin = new ConditionalS3Server();
const STATE = 'state-bucket/state/helpdesk-sync.sqlite';
let sandbox: RunningSandbox;
let client: S3Client;
let dir: string;
let config: string;

beforeAll(async () => {
  await s3.start();
  await standin.start();
  sandbox = await startSandbox({ port: 0, seed: 9, organizations: [40, 15], rateLimit: 1_000_000 });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  dir = mkdtempSync(join(tmpdir(), 'hs-accounts-s3-'));
  config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      source: { rate_limit: { requests_per_minute: 100_000 } },
      accounts: sandbox.organizations.map((o) => ({ name: o.slug, base_url: sandbox.baseUrl, token: o.tokens.admin })),
      reports: { lookback_days: 0 },
      destination: { ...s3.destination('helpdesk'), spool_path: join(dir, 'spool') },
      state: {
        path: `s3://${STATE}`,
        s3: { endpoint: standin.endpoint, region: 'us-east-1', force_path_style: true },
      },
      log: { level: 'error' },
    }),
  );
});
afterAll(async () => {
  client?.destroy();
  await sandbox?.close();
  await s3.stop();
  await standin.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function keys(prefix: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key as string).sort();
}

const sync = () => runCli(['sync', '--config', config], { env: { ...awsEnv, TMPDIR: dir } });

/** The state objects the stand-in holds under one account's folder. */
const stateKeys = (account: string) =>
  [...standin.objects.keys()].filter((k) => k.startsWith(`state-bucket/state/${account}/`)).sort();

describe('several accounts with their state in S3', () => {
  it("keeps each account's state, lock and output under its own name, and a held lock fails that account only", async () => {
    const first = await sync();
    expect(first.code, first.stderr).toBe(0);
    for (const { slug } of sandbox.organizations) {
      // The head of its state, beside the configured key, in a folder named after it; no lock left behind.
      const state = stateKeys(slug);
      expect(state, slug).toContain(`state-bucket/state/${slug}/helpdesk-sync.sqlite`);
      expect(
        state.filter((k) => k.endsWith('.lock')),
        slug,
      ).toEqual([]);
      expect((await keys(`helpdesk/${slug}/_manifests/`)).length, slug).toBe(1);
    }
    // Another run holds globex's lock: globex fails with the lock's code, acme goes on and commits.
    const now = new Date().toISOString();
    const lock = { id: 'another-run', pid: 1, host: 'elsewhere', command: 'sync', started_at: now, refreshed_at: now };
    standin.put('state-bucket/state/globex/helpdesk-sync.sqlite.lock', JSON.stringify(lock));
    const held = await sync();
    expect(held.code).toBe(3);
    expect(held.stdout).toMatch(/accounts: acme succeeded, globex failed \(STATE_LOCKED\)/);
    expect((await keys('helpdesk/acme/_manifests/')).length).toBe(2);
    expect((await keys('helpdesk/globex/_manifests/')).length).toBe(1);
  });
});
