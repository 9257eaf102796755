/**
 * What one build of helpdesk-sync prints and writes, as one normalized text, so two builds can be
 * held byte for byte against each other (a change that must not change behaviour):
 *
 *   node --import tsx scripts/output-snapshot.ts <checkout with dist/ built> > before.txt
 *   node --import tsx scripts/output-snapshot.ts . > after.txt && diff before.txt after.txt
 *
 * The checkout's own sandbox (seed 7, 300 conversations, its clock standing still at today's noon
 * UTC, so two runs on one day see the same data) serves a session of that checkout's CLI: sync,
 * check, plan as text, Markdown (saved) and JSON, apply of the saved plan, plan again, changes
 * through the API (a status, a note, a trashed and a force-deleted conversation, a contact, a tag
 * renamed and one deleted), a second sync, state show, verify --output, schemas in every format
 * (with --merge, and the dbt export), and three invalid configs. Every exit code, stdout
 * and stderr (progress events left out: their number depends on timing), output file (gzip files
 * decompressed), the saved plan, the apply report and every table of the state database are
 * printed. Run ids, times, durations, gzip sizes and hashes are replaced by placeholders.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';

const checkout = resolve(process.argv[2] ?? '.');
const dir = mkdtempSync(join(tmpdir(), 'output-snapshot-'));
const today = new Date().toISOString().slice(0, 10);

/** The CLI steps, in order: a name and the arguments. */
const STEPS: [string, string[]][] = [
  ['sync', ['sync']],
  ['check', ['check']],
  ['plan', ['plan']],
  ['plan-markdown', ['plan', '--format', 'markdown', '--out', 'plan.json']],
  ['plan-json', ['plan', '--json']],
  ['apply', ['apply', '--plan', 'plan.json', '--report', 'apply-report.md']],
  ['plan-after-apply', ['plan', '--detailed-exitcode']],
  ['changes', []],
  ['sync-again', ['sync']],
  ['state-show', ['state', 'show']],
  ['verify', ['verify', '--output']],
  ['schemas', ['schemas']],
  ...['duckdb', 'bigquery', 'snowflake', 'postgres'].flatMap((format): [string, string[]][] => [
    [`schemas-${format}`, ['schemas', '--format', format]],
    [`schemas-${format}-merge`, ['schemas', '--format', format, '--merge']],
  ]),
  ['schemas-dbt', ['schemas', '--format', 'dbt', '--out', 'dbt']],
  ['missing-config', ['sync', '--config', 'missing.yaml']],
  ['invalid-config', ['sync', '--config', 'invalid.yaml']],
  ['invalid-limits', ['check', '--config', 'limits.yaml']],
];

function config(baseUrl: string): string {
  return [
    `source: { base_url: "${baseUrl}", token: sandbox-admin, rate_limit: { requests_per_minute: 100000 } }`,
    'reports: { lookback_days: 3, start_date: "2026-10-01" }',
    'destination: { type: local, path: ./out }',
    'state: { path: ./state/state.sqlite }',
    'checkpoint: { every_rows: 2000, every_seconds: 600 }',
    'push: { holidays: ./config/holidays.yaml, business_hours: ./config/business-hours.yaml }',
    '',
  ].join('\n');
}

function prepare(baseUrl: string): void {
  mkdirSync(join(dir, 'config'));
  for (const name of ['holidays.yaml', 'business-hours.yaml', 'offsites.ics']) {
    copyFileSync(join(checkout, 'config', name), join(dir, 'config', name));
  }
  writeFileSync(join(dir, 'helpdesk-sync.yaml'), config(baseUrl));
  writeFileSync(
    join(dir, 'invalid.yaml'),
    'source: { base_url: "ftp://x", token: "", rate_limit: { concurrency: 0 } }\n',
  );
  writeFileSync(
    join(dir, 'limits.yaml'),
    `source: { base_url: "${baseUrl}", token: t, rate_limit: { requests_per_minute: 100001, concurrency: 1.5, window_seconds: 0 }, connect_timeout_ms: -1 }\n`,
  );
}

function run(args: string[]): Promise<string> {
  const withConfig =
    args.includes('--config') || args[0] === 'schemas' ? args : [...args, '--config', 'helpdesk-sync.yaml'];
  return new Promise((done) => {
    execFile(
      'node',
      [join(checkout, 'dist', 'cli', 'main.js'), ...withConfig],
      { cwd: dir },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error.code ?? 'signal');
        const logs = stderr.split('\n').filter((line) => !line.includes('"event":"sync.progress"'));
        done(`exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${logs.join('\n')}`);
      },
    );
  });
}

/** One call to the sandbox as the admin token; the parsed body. */
async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

type Item = Record<string, unknown> & { id: string };

/** Changes between the two syncs, each of a kind the second sync must write: every call and its status. */
async function changes(baseUrl: string): Promise<string> {
  const search = (await call(baseUrl, 'POST', '/search?sort=oldest&per_page=10', {})) as {
    data: { conversations: { data: Item[] } };
  };
  const [a, b, c, d, e] = search.data.conversations.data as [Item, Item, Item, Item, Item];
  const inboxes = (await call(baseUrl, 'GET', '/inboxes')) as Item[];
  const tags = (await call(baseUrl, 'GET', `/inboxes/${inboxes[0]?.id}/tags`)) as { data: Item[] };
  const contact = e.contact as Item;
  const steps: [string, string, unknown?][] = [
    ['PATCH', `/conversation/${a.id}`, { status: 'Closed' }],
    ['POST', `/conversation/${b.id}/note`, { message: 'checked by the snapshot', mentioned_ids: [] }],
    ['DELETE', `/conversation/${c.id}`],
    ['DELETE', `/conversation/${d.id}`],
    ['DELETE', `/conversation/${d.id}/force-delete`],
    ['PATCH', `/contacts/${contact.id}`, { job_title: 'Snapshot tester' }],
    ['PUT', `/settings/tags/${tags.data[0]?.id}`, { name: 'renamed-by-snapshot', color: '#112233' }],
    ['DELETE', `/settings/tags/${tags.data[1]?.id}`],
  ];
  const lines: string[] = [];
  for (const [method, path, body] of steps) {
    await call(baseUrl, method, path, body);
    lines.push(`${method} ${path}: ok`);
  }
  return `${lines.join('\n')}\n`;
}

function normalize(text: string, baseUrl: string): string {
  return (
    text
      .replaceAll(dir, '<DIR>')
      .replaceAll(baseUrl, '<API>')
      .replace(/\d{8}T\d{6}Z-[a-z0-9]{6}/g, '<RUN>')
      .replace(new RegExp(`${today}T\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z`, 'g'), '<NOW>')
      .replace(/"time":\d{13}/g, '"time":<T>')
      .replace(/(\\?")(elapsed_ms|duration_ms|ms|pid)\1:\s*\d+/g, '$1$2$1:<N>')
      .replace(/ in \d+(\.\d+)?(ms|s|m)\b/g, ' in <DURATION>')
      // The progress line a run prints at its start (no terminal): its elapsed time.
      .replace(/(<RUN> {2})\d[\dhms.]*(?= {2}requests)/g, '$1<ELAPSED>')
      .replace(/"sha256":\s*"[0-9a-f]{64}"/g, '"sha256":"<SHA256>"')
      .replace(/"(bytes|size)":\s*\d+/g, '"$1":<N>')
      .replace(/"hostname":"[^"]*"/g, '"hostname":"<HOST>"')
  );
}

function filesUnder(path: string): string[] {
  return readdirSync(path)
    .sort()
    .flatMap((name) => (statSync(join(path, name)).isDirectory() ? filesUnder(join(path, name)) : [join(path, name)]));
}

function writtenFiles(): string[] {
  const files = filesUnder(join(dir, 'out')).map((file) => {
    const raw = readFileSync(file);
    return `### ${relative(dir, file)}\n${file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8')}`;
  });
  const extra = ['plan.json', 'apply-report.md'].map((name) => `### ${name}\n${readFileSync(join(dir, name), 'utf8')}`);
  const dbt = filesUnder(join(dir, 'dbt')).map((file) => `### ${relative(dir, file)}\n${readFileSync(file, 'utf8')}`);
  return [...files, ...extra, ...dbt];
}

function stateTables(): string[] {
  const db = new Database(join(dir, 'state', 'state.sqlite'), { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  const tables = names.map(({ name }) => {
    const rows = db
      .prepare(`SELECT * FROM "${name}"`)
      .all()
      .map((row) => JSON.stringify(row));
    return `### state: ${name} (${rows.length} rows)\n${rows.sort().join('\n')}`;
  });
  db.close();
  return tables;
}

async function main(): Promise<void> {
  const { startSandbox } = (await import(
    join(checkout, 'dist', 'sandbox', 'start.js')
  )) as typeof import('../src/sandbox/start.js');
  const noon = new Date(`${today}T12:00:00Z`);
  const sandbox = await startSandbox({ seed: 7, conversations: 300, rateLimit: 100_000, now: () => noon });
  try {
    prepare(sandbox.baseUrl);
    const parts: string[] = [];
    for (const [name, args] of STEPS) {
      const out = name === 'changes' ? await changes(sandbox.baseUrl) : await run(args);
      parts.push(`### ${name}: helpdesk-sync ${args.join(' ')}\n${out}`);
    }
    parts.push(...writtenFiles(), ...stateTables());
    process.stdout.write(`${normalize(parts.join('\n'), sandbox.baseUrl)}\n`);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
