/**
 * Column privacy end to end, with real CLI processes against the sandbox: contacts'
 * e-mail and messages' cc hashed, message bodies (and the conversation excerpt,
 * which quotes the last message) dropped. Two syncs with changes between them
 * (a reply with a marked body cc'ing a contact, a contact's new e-mail, every kind
 * of change), each followed by `--load` into DuckDB, and a sync into S3 killed
 * while its uploads fail, so its spool is left behind full. No file (output,
 * manifests, state, spool), no S3 object, no log line and no warehouse row holds
 * any original value; the hashes are the keyed HMAC of the originals, stable
 * across runs, and join across tables.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/output/manifest.js';
import { compilePrivacyPolicy } from '../../../src/output/privacy/privacy-policy.js';
import { S3TestServer } from '../output/support/s3-test-server.js';
import { readS3Output, S3_ENV } from '../resilience/s3-support.js';
import { findNeedles, runBuiltCli, walkFiles } from '../resilience/support.js';
import type { CliResult } from '../sync/cli-run.js';
import { allConversations, api, changeEveryWayOnOpen, type Row, type SyncEnv, startSyncEnv } from '../sync/support.js';
import { manifestsOf, withDuckdb } from './support.js';

const TIMEOUT_MS = 240_000;
const KEY = 'privacy-scan-test-key-0123456789';
const hmac = (text: string) => createHmac('sha256', KEY).update(text).digest('hex');
const POLICY = {
  contacts: { email: 'hash' },
  messages: { text_body: 'drop', html_body: 'drop', excerpt: 'drop', cc: 'hash' },
  conversations: { excerpt: 'drop' },
};
const MARKER_BODY = 'Confidential marker 5d1f: the refund for invoice 88231 goes to the other card';
const MARKER_EMAIL = 'privacy.check.7731@private.example';

let env: SyncEnv;
let config: string;
let duckPath: string;
const logs: Record<string, string> = {};
let s3: S3TestServer;
let spool = '';
let spoolFiles = 0;
let originals: string[] = [];
let contactNames: string[] = [];
let cced = '';
let markerMessageId = '';

async function sync(name: string, args: string[] = []): Promise<CliResult> {
  const run = await runBuiltCli(['sync', '--load', '--config', config, ...args], { env: { HELPDESK_HASH_KEY: KEY } });
  logs[`${name} stdout`] = run.stdout;
  logs[`${name} stderr`] = run.stderr;
  return run;
}

/** Every e-mail, cc and body the API holds now (the policy's originals). */
async function originalValues(): Promise<string[]> {
  const values = new Set<string>([MARKER_BODY, MARKER_EMAIL]);
  for (const conversation of await allConversations(env.sandbox)) {
    values.add(String((conversation.contact as Row).email));
    const thread = (await api(env.sandbox, 'GET', `/conversation/${conversation.id}/messages`)) as unknown as Row[];
    for (const event of thread) {
      const message = event.event as Row | null;
      if (!message) continue;
      for (const field of ['text_body', 'html_body', 'excerpt']) if (message[field]) values.add(String(message[field]));
      for (const cc of (message.cc as string[]) ?? []) values.add(cc);
    }
  }
  return [...values].filter((v) => v.length >= 12);
}

beforeAll(async () => {
  env = await startSyncEnv({ seed: 53, conversations: 40 });
  s3 = new S3TestServer();
  await s3.start();
  duckPath = join(env.dir, 'warehouse', 'helpdesk.duckdb');
  config = env.configFile('private.json', {
    privacy: POLICY,
    // Every version kept too (load.keep_raw): no original in any table, and the versions of each run to check.
    load: { into: `duckdb:${duckPath}`, keep_raw: true },
    checkpoint: { every_rows: 50, every_seconds: 1 },
    log: { level: 'trace' },
  });
  expect((await sync('first')).code).toBe(0);

  const live = await changeEveryWayOnOpen(env.sandbox);
  const [marked, renamed] = live.slice(8);
  cced = String((renamed!.contact as Row).email);
  await api(env.sandbox, 'POST', `/conversation/${marked!.id}/draft`, { message: `<p>${MARKER_BODY}</p>`, cc: [cced] });
  await api(env.sandbox, 'POST', `/conversation/${marked!.id}/reply`, { status: 'Pending' });
  const thread = (await api(env.sandbox, 'GET', `/conversation/${marked!.id}/messages`)) as unknown as Row[];
  markerMessageId = String(thread.map((e) => e.event as Row | null).find((m) => m?.text_body === MARKER_BODY)?.id);
  // A contact of its own: contacts are shared between conversations, and the cc'd one must keep its address.
  const other = (await allConversations(env.sandbox))
    .map((c) => c.contact as Row)
    .findLast((c) => c.id !== (renamed!.contact as Row).id)!;
  await api(env.sandbox, 'PATCH', `/contacts/${other.id}`, { email: MARKER_EMAIL });

  originals = await originalValues();
  contactNames = (await allConversations(env.sandbox)).map((c) => String((c.contact as Row).name));

  // A run into S3 whose contacts uploads fail is killed while it retries: its spool holds the
  // checkpoint's whole files waiting for upload, scanned as they are, beside what reached the bucket.
  s3.fault = (req) => req.method === 'PUT' && req.url.includes('/private/contacts/');
  const killedConfig = env.configFile('killed-s3.json', {
    privacy: POLICY,
    destination: s3.destination('private'),
    state: { path: join(env.dir, 'killed-state', 'state.sqlite') },
    checkpoint: { every_rows: 50, every_seconds: 1 },
    log: { level: 'trace' },
  });
  const killed = await runBuiltCli(['sync', '--config', killedConfig], {
    env: { ...S3_ENV, HELPDESK_HASH_KEY: KEY },
    onStart: (child) => {
      const timer = setInterval(() => {
        if (s3.seen.some((r) => r.status === 500)) child.kill('SIGKILL');
      }, 5);
      child.on('close', () => clearInterval(timer));
    },
  });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  logs['killed stderr'] = killed.stderr;
  spool = join(env.dir, 'killed-state', 'state.spool');
  spoolFiles = walkFiles(spool).filter((p) => p.endsWith('.jsonl.gz')).length;
  logs.bucket = JSON.stringify(await readS3Output(s3.endpoint, s3.bucket, 'private'));

  expect((await sync('second')).code).toBe(0);
}, TIMEOUT_MS);

afterAll(async () => {
  await s3?.stop();
  await env?.close();
});

/** Every row of every table of the warehouse, as text. */
async function warehouseText(): Promise<string> {
  return withDuckdb(duckPath, async (read) => {
    const tables = await read("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'");
    const parts: string[] = [];
    for (const { table_name } of tables) parts.push(JSON.stringify(await read(`SELECT * FROM "${table_name}"`)));
    return parts.join('\n');
  });
}

describe('column privacy: no original value anywhere', () => {
  it('the scan has something to find: originals in the API, contact names (not policed) in the files', () => {
    expect(originals.length).toBeGreaterThan(50);
    expect(originals).toContain(MARKER_BODY);
    expect(findNeedles(env.outDir, {}, contactNames).length).toBeGreaterThan(0);
  });

  it('the killed run left whole files in its spool, with rows in them (contact names, not policed)', () => {
    expect(spoolFiles).toBeGreaterThan(0);
    expect(findNeedles(spool, {}, contactNames).length).toBeGreaterThan(0);
    expect(JSON.parse(logs.bucket!).dataKeys.length).toBeGreaterThan(0);
  });

  it('no output file, manifest, state file, log line or warehouse row holds an original', async () => {
    expect(Object.keys(logs)).toHaveLength(6);
    expect(logs['second stderr']!.split('\n').length).toBeGreaterThan(10);
    const found = findNeedles(env.dir, { ...logs, warehouse: await warehouseText() }, originals);
    expect(found).toEqual([]);
  });

  it('hashes are the keyed HMAC of the originals, stable across runs, and join across tables', async () => {
    const emails = new Map(
      (await allConversations(env.sandbox)).map((c) => [(c.contact as Row).id, (c.contact as Row).email]),
    );
    await withDuckdb(duckPath, async (read) => {
      const versions = await read('SELECT id, email, _run_id FROM contacts_raw');
      expect(new Set(versions.map((v) => v._run_id)).size).toBeGreaterThan(1);
      for (const v of versions) {
        if (v.email === hmac(MARKER_EMAIL) || emails.get(v.id) === MARKER_EMAIL) continue; // the one that changed
        expect(v.email, `contact ${v.id}`).toBe(hmac(String(emails.get(v.id))));
      }
      const [current] = await read(`SELECT email FROM contacts WHERE email = '${hmac(MARKER_EMAIL)}'`);
      expect(current).toBeDefined();
      const joined = await read(
        `SELECT c.id FROM messages m JOIN contacts c ON list_contains(m.cc, c.email) WHERE m.id = '${markerMessageId}'`,
      );
      expect(joined.length).toBe(1);
      expect(joined[0]!.id).toBe([...emails].find(([, email]) => email === cced)?.[0]);
    });
  });

  it('manifests and their files carry the policy and its schema versions', () => {
    const policy = compilePrivacyPolicy(POLICY, KEY);
    const manifests: Manifest[] = manifestsOf(env.outDir);
    expect(manifests.length).toBe(2);
    for (const manifest of manifests) {
      expect(manifest.privacy).toEqual(policy.summary);
      expect(manifest.schema_version).toBe(policy.schemaSetVersion);
      for (const file of manifest.files)
        expect(file.schema_version).toBe(policy.schemaVersions[file.table as 'contacts']);
    }
    expect(readFileSync(config, 'utf8')).not.toContain(KEY);
  });

  it('check lists the policy, schemas --config describes it; a sync without the key stops before any request (exit 64)', async () => {
    const check = await runBuiltCli(['check', '--config', config], { env: { HELPDESK_HASH_KEY: KEY } });
    expect(check.stdout).toContain(
      'privacy: conversations.excerpt drop, messages.cc hash, messages.excerpt drop, messages.html_body drop, ' +
        'messages.text_body drop, contacts.email hash',
    );
    // The JSON Schema under the policy, which needs no key: it hashes nothing.
    const schemas = await runBuiltCli(['schemas', '--table', 'contacts', '--config', config]);
    expect(schemas.code, schemas.stderr).toBe(0);
    const contacts = JSON.parse(schemas.stdout) as { properties: Record<string, { pattern?: string }> };
    expect(contacts.properties.email!.pattern).toBe('^[0-9a-f]{64}$');
    const requests = env.sandbox.stats().total;
    const keyless = await runBuiltCli(['sync', '--config', config], { env: { HELPDESK_HASH_KEY: '' } });
    expect(keyless.code).toBe(64);
    expect(keyless.stderr).toContain('privacy: hash needs its key in the environment variable HELPDESK_HASH_KEY');
    expect(env.sandbox.stats().total).toBe(requests);
  });
});
