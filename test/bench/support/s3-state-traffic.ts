import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { createKvStore } from '../../../src/state/kv-store.js';
import { S3TestServer, type SeenRequest } from '../../integration/output/support/s3-test-server.js';
import { S3_ENV } from '../../integration/resilience/s3-support.js';
import { type ChildResult, describePeak, loadAverage, syncChild, writeConfig } from './scale-processes.js';

const STATE_KEY = 'state/helpdesk-sync.sqlite';

/** Bytes and requests of the state's objects in one run, by part. */
export interface StateTraffic {
  down: number;
  up: number;
  requests: number;
  byPart: Record<string, { down: number; up: number; requests: number }>;
}

function partOf(url: string): string | undefined {
  const path = decodeURIComponent(url.split('?')[0] ?? '');
  if (!path.includes(`/${STATE_KEY}`)) return undefined;
  if (path.endsWith('.lock')) return 'lock';
  if (path.endsWith(`/${STATE_KEY}`)) return 'head';
  if (path.includes('/base-')) return 'base';
  if (path.includes('/log-')) return 'change files';
  return 'other';
}

function traffic(seen: readonly SeenRequest[]): StateTraffic {
  const out: StateTraffic = { down: 0, up: 0, requests: 0, byPart: {} };
  for (const r of seen) {
    const part = partOf(r.url);
    if (!part) continue;
    const p = out.byPart[part] ?? { down: 0, up: 0, requests: 0 };
    out.byPart[part] = p;
    for (const t of [p, out]) {
      t.down += r.bytesDown;
      t.up += r.bytesUp;
      t.requests += 1;
    }
  }
  return out;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 1)} MB`;

function describe(name: string, t: StateTraffic, r: ChildResult): string {
  const parts = Object.entries(t.byPart)
    .map(([part, p]) => `${part} ${mb(p.down)} down / ${mb(p.up)} up in ${p.requests}`)
    .join('; ');
  return `  ${name}: ${mb(t.down)} down, ${mb(t.up)} up, ${t.requests} requests (${parts}); ${r.requests} API requests, ${r.rows} rows, ${r.seconds.toFixed(1)} s, peak RSS ${r.maxRssMb.toFixed(0)} MB (${describePeak(r.peakMemory)}); load average ${loadAverage()}\n`;
}

/**
 * What a state in object storage moves (docs/state.md › State in object
 * storage): the state of a full sync put in s3rver as earlier versions kept
 * it (one SQLite object), then syncs from it with nothing changed: in a fresh
 * process that finds the first run's copy in `state.cache_dir` (a container
 * with a volume), in a fresh process without one (a container that keeps
 * nothing), in the same process (as the daemon), and one after 1 % of the
 * conversations changed. Bytes are counted on the wire by the test server's proxy, per part
 * of the state (head, base, change files, lock).
 */
export async function s3StateTraffic(o: {
  baseUrl: string;
  dir: string;
  stateFile: string;
}): Promise<Record<string, unknown>> {
  const s3 = new S3TestServer();
  await s3.start();
  const dir = join(o.dir, 's3-state');
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  try {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const bytes = statSync(o.stateFile).size;
    // Whole, as earlier versions wrote it (a streamed body would go aws-chunked, which s3rver stores as it came).
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: STATE_KEY, Body: readFileSync(o.stateFile) }));
    client.destroy();
    const config = writeConfig(dir, o.baseUrl, ['conversations', 'contacts', 'messages'], {
      state: {
        path: `s3://${s3.bucket}/${STATE_KEY}`,
        s3: { endpoint: s3.endpoint, region: 'us-east-1', force_path_style: true, checksum: 'when_required' },
      },
    });
    // The same state with a volume: runs keep their copy in state.cache_dir for the next process.
    const cachedConfig = writeConfig(
      dir,
      o.baseUrl,
      ['conversations', 'contacts', 'messages'],
      {
        state: {
          path: `s3://${s3.bucket}/${STATE_KEY}`,
          s3: { endpoint: s3.endpoint, region: 'us-east-1', force_path_style: true, checksum: 'when_required' },
          cache_dir: join(dir, 'volume'),
        },
      },
      'config-volume.json',
    );
    const env = { ...S3_ENV, TMPDIR: join(dir, 'tmp') };
    const figures: Record<string, unknown> = { state_bytes: bytes };
    process.stdout.write(
      `state in object storage (s3rver), a state of ${mb(bytes)} written as one object by an earlier version:\n`,
    );
    let mark = s3.seen.length;
    const measure = (name: string, r: ChildResult) => {
      const t = traffic(s3.seen.slice(mark));
      mark = s3.seen.length;
      figures[name] = {
        ...t,
        api_requests: r.requests,
        rows: r.rows,
        seconds: r.seconds,
        peak_rss_mb: r.maxRssMb,
        peak_memory: r.peakMemory,
      };
      process.stdout.write(describe(name, t, r));
      return t;
    };
    const [conversion] = await syncChild(cachedConfig, { env });
    measure('first run: one object read, replaced by a head and a base', conversion as ChildResult);
    const [volume] = await syncChild(cachedConfig, { env });
    measure('unchanged, fresh process with state.cache_dir (a container with a volume)', volume as ChildResult);
    // One process, three syncs: a fresh copy, then the daemon's kept copy; 1 % changed before the third.
    const changed = await changeOnePercent(o.baseUrl, o.stateFile);
    let onePercent: StateTraffic | undefined;
    await syncChild(config, {
      env,
      runs: 3,
      between: async (run, r) => {
        if (run === 1) measure('unchanged, fresh process (a container that keeps nothing)', r);
        if (run === 2) {
          measure('unchanged, same process (the daemon: copy kept)', r);
          await changed.apply();
        }
        if (run === 3) onePercent = measure(`${changed.count} conversations changed (1 %), same process`, r);
      },
    });
    const base =
      (figures['first run: one object read, replaced by a head and a base'] as StateTraffic).byPart.base?.up ?? 0;
    if (onePercent && base > 0) {
      figures.one_percent_upload_share = onePercent.up / base;
      process.stdout.write(`  the 1 % run sent ${((100 * onePercent.up) / base).toFixed(2)} % of the base's bytes\n`);
    }
    return figures;
  } finally {
    await s3.stop();
  }
}

/** 1 % of the listed conversations (every hundredth, by id), changed through the API when apply() is called. */
async function changeOnePercent(
  baseUrl: string,
  stateFile: string,
): Promise<{ count: number; apply(): Promise<void> }> {
  const db = new Database(stateFile, { readonly: true });
  const ids = [...createKvStore({ db }).keys('fp:conversations')].filter((_, i) => i % 100 === 0);
  db.close();
  return {
    count: ids.length,
    async apply() {
      for (const [i, id] of ids.entries()) {
        const res = await fetch(`${baseUrl}/conversation/${id}`, {
          method: 'PATCH',
          headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
          body: JSON.stringify({ subject: `changed for the benchmark ${i}` }),
        });
        if (!res.ok) throw new Error(`PATCH conversation ${id}: ${res.status}`);
      }
    },
  };
}
