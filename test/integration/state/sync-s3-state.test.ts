import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { objectsOf, parseHead, type StateHead } from '../../../src/state/remote/state-head.js';
import { fetchSandboxStats } from '../api/sandbox-stats.js';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { type CliResult, runCli } from '../sync/cli-run.js';
import {
  allConversations,
  api,
  content,
  merged,
  type Row,
  readTables,
  type SyncEnv,
  startSyncEnv,
  threadRequests,
} from '../sync/support.js';

const awsEnv: Record<string, string> = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_EC2_METADATA_DISABLED: 'true',
};
const s3 = new S3TestServer();
let env: SyncEnv;
let client: S3Client;
let configPath: string;
let slowConfigPath: string;
const STATE_KEY = 'state/helpdesk-sync.sqlite';

beforeAll(async () => {
  Object.assign(process.env, awsEnv);
  await s3.start();
  env = await startSyncEnv({ seed: 6, conversations: 80 });
  // The runs' private state directories (left behind by the killed one) go under env.dir.
  awsEnv.TMPDIR = join(env.dir, 'tmp');
  mkdirSync(awsEnv.TMPDIR);
  client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
  const settings = {
    destination: s3.destination(),
    // The state's S3 settings come from the destination.
    state: { path: `s3://${s3.bucket}/${STATE_KEY}` },
    checkpoint: { every_rows: 20, every_seconds: 1 },
    log: { level: 'error' },
  };
  configPath = env.configFile('s3-state.json', settings);
  // The run to be killed goes slower, so the kill finds it half-way.
  slowConfigPath = env.configFile('s3-state-slow.json', {
    ...settings,
    source: { rate_limit: { requests_per_minute: 1200, concurrency: 2 } },
  });
});
afterAll(async () => {
  client?.destroy();
  await env?.sandbox.close();
  await s3.stop();
  if (env) rmSync(env.dir, { recursive: true, force: true });
});

async function keys(prefix: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

async function bytes(key: string): Promise<Buffer> {
  const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}

async function head(): Promise<StateHead> {
  return parseHead(await bytes(STATE_KEY)) as StateHead;
}

async function etag(key: string): Promise<string | undefined> {
  return (await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ETag;
}

interface Manifest {
  run_id: string;
  files: Array<{ key: string; table: string }>;
}

async function manifests(): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const key of await keys('helpdesk/_manifests/')) out.push(JSON.parse((await bytes(key)).toString('utf8')));
  return out;
}

/** `helpdesk-sync sync` from a fresh, empty working directory, which must stay empty. */
async function syncFromEmptyDir(onStart?: (child: ChildProcess) => void, config = configPath): Promise<CliResult> {
  const cwd = mkdtempSync(join(env.dir, 'cwd-'));
  const result = await runCli(['sync', '--config', config], { env: awsEnv, cwd, onStart });
  expect(readdirSync(cwd)).toEqual([]);
  return result;
}

describe('a sync with its state in S3 (s3rver), run by containers that keep nothing', () => {
  it('syncs from an empty directory, resumes quietly from another, survives SIGKILL, and lists every file once', async () => {
    // 1. First run: nothing local, nothing in the bucket.
    const first = await syncFromEmptyDir();
    expect(first.code, first.stderr).toBe(0);
    // The head, and exactly the base and change files it names.
    expect(await keys('state/')).toEqual([STATE_KEY, ...objectsOf(STATE_KEY, await head())].sort());
    expect((await manifests()).length).toBe(1);

    // 2. Another empty directory: the state comes from S3, so the re-sync is quiet.
    const origin = new URL(env.sandbox.baseUrl).origin;
    const before = await fetchSandboxStats(origin);
    const second = await syncFromEmptyDir();
    expect(second.code, second.stderr).toBe(0);
    const after = await fetchSandboxStats(origin);
    const conversations = await allConversations(env.sandbox);
    const inboxes = ((await api(env.sandbox, 'GET', '/inboxes')) as unknown as Row[]).length;
    // The stats request itself is counted once.
    expect(after.total - before.total - 1).toBeLessThanOrEqual(Math.ceil(conversations.length / 100) + 3 * inboxes + 4);
    const quiet = (await manifests()).at(-1)!;
    for (const table of ['conversations', 'messages', 'thread_events', 'contacts']) {
      expect(
        quiet.files.filter((f) => f.table === table),
        table,
      ).toEqual([]);
    }

    // 3. Changes in 40 threads, then a run killed with SIGKILL half-way through fetching them.
    const live = conversations.filter((c) => c.deleted_at === null).slice(0, 40);
    for (const c of live)
      await api(env.sandbox, 'POST', `/conversation/${c.id}/note`, { message: 'n', mentioned_ids: [] });
    const threadsBefore = threadRequests(env.sandbox);
    const stateBefore = await etag(STATE_KEY);
    let timer: NodeJS.Timeout | undefined;
    const killed = await syncFromEmptyDir((child) => {
      timer = setInterval(() => {
        if (threadRequests(env.sandbox) >= threadsBefore + 25) child.kill('SIGKILL');
      }, 20);
    }, slowConfigPath);
    clearInterval(timer);
    expect(killed.signal, `sync ended before the kill (exit ${killed.code}): ${killed.stderr}`).toBe('SIGKILL');
    expect(await keys(`${STATE_KEY}.lock`)).toEqual([`${STATE_KEY}.lock`]);
    // Checkpoints committed before the kill were uploaded while the run went on.
    expect(await etag(STATE_KEY)).not.toBe(stateBefore);

    // 4. The next run takes the dead run's lock over, recovers and completes.
    const last = await syncFromEmptyDir();
    expect(last.code, last.stderr).toBe(0);
    // Every file the head names is there; what else is left is change files of the killed run that no head names.
    const named = [STATE_KEY, ...objectsOf(STATE_KEY, await head())];
    const stateObjects = await keys('state/');
    for (const key of named) expect(stateObjects, key).toContain(key);
    for (const key of stateObjects.filter((k) => !named.includes(k)))
      expect(key).toMatch(/\.d\/[^/]+\/log-\d+-[0-9a-f]{16}\.sqlite$/);

    // `state show` reads a downloaded copy and leaves the object as it was.
    const settled = await etag(STATE_KEY);
    const cwd = mkdtempSync(join(env.dir, 'cwd-'));
    const show = await runCli(['state', 'show', '--config', configPath], { env: awsEnv, cwd });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`s3://${s3.bucket}/${STATE_KEY}`);
    expect(await etag(STATE_KEY)).toBe(settled);

    // No file is listed twice, every listed file exists, and the listed files hold everything.
    const all = await manifests();
    const listed = all.flatMap((m) => m.files.map((f) => f.key));
    expect(listed.length).toBe(new Set(listed).size);
    const present = new Set(await keys('helpdesk/'));
    for (const key of listed) expect(present.has(`helpdesk/${key}`), key).toBe(true);
    const union: Record<string, Row[]> = {};
    for (const m of all) {
      for (const f of m.files) {
        if (f.key.startsWith('_')) continue;
        const text = gunzipSync(await bytes(`helpdesk/${f.key}`)).toString('utf8');
        const rows = text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Row);
        union[f.table] = (union[f.table] ?? []).concat(rows);
      }
    }
    const referenceDir = join(env.dir, 'reference-out');
    await env.sync({
      destination: { type: 'local', path: referenceDir },
      state: { path: join(env.dir, 'reference.sqlite') },
    });
    const reference = readTables(referenceDir);
    for (const table of Object.keys(TABLES) as TableName[]) {
      const pk = [...TABLES[table]];
      const got = merged(union[table], pk);
      const want = merged(reference[table], pk);
      expect(new Set(got.keys()), table).toEqual(new Set(want.keys()));
      for (const [key, row] of want) expect(content(got.get(key)!), `${table} ${key}`).toEqual(content(row));
    }
  }, 180_000);

  it('with state.cache_dir (a volume) a later run in another process downloads nothing while no other run wrote the state', async () => {
    const volume = join(env.dir, 'volume');
    const cached = env.configFile('s3-state-cached.json', {
      destination: s3.destination(),
      state: { path: `s3://${s3.bucket}/${STATE_KEY}`, cache_dir: volume },
      log: { level: 'error' },
    });
    /** The state's parts (base and change files) a run read. */
    const partsRead = async (config: string) => {
      const mark = s3.seen.length;
      const result = await syncFromEmptyDir(undefined, config);
      expect(result.code, result.stderr).toBe(0);
      return s3.seen.slice(mark).filter((r) => r.method === 'GET' && r.url.includes(`/${STATE_KEY}.d/`));
    };
    // No copy yet: the base is read, and the copy kept in the volume (0700), not in the working directory.
    expect((await partsRead(cached)).length).toBeGreaterThan(0);
    const kept = readdirSync(volume);
    expect(kept).toHaveLength(1);
    expect(statSync(join(volume, kept[0]!)).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(volume, kept[0]!)).sort()).toEqual(expect.arrayContaining(['copy.json', 'state.sqlite']));
    // A run in another process reads no part: the head answered 304.
    expect(await partsRead(cached)).toEqual([]);
    // Another run (no volume) wrote the state since: the copy is not trusted, and the state is read again.
    await partsRead(configPath);
    expect((await partsRead(cached)).length).toBeGreaterThan(0);
    expect(await partsRead(cached)).toEqual([]);
  }, 120_000);
});
