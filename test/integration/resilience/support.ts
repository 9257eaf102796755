import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { CONVERSATION_SCOPES } from '../../../src/catalog/conversation-scopes.js';
import { TABLES, type TableName } from '../../../src/output/tables.js';
import { createKvStore } from '../../../src/state/kv-store.js';
import { type CliResult, runProcess } from '../sync/cli-run.js';
import { api, content, merged, type Row, readTables, type SyncEnv } from '../sync/support.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Mounts a tmpfs of `size` at `dir` (read-only with `readOnly`), and returns the
 * unmount. Needs root with mount permission; says so plainly when refused.
 */
export function mountTmpfs(dir: string, options: { size: string; readOnly?: boolean }): () => void {
  mkdirSync(dir, { recursive: true });
  const flags = `size=${options.size},mode=0755${options.readOnly ? ',ro' : ''}`;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', flags, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    const reason = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    throw new Error(
      `DISK CASE NOT TESTED: mounting a tmpfs (${flags}) at ${dir} was refused (${reason}). ` +
        'It needs root with mount permission (CAP_SYS_ADMIN); run the suite where that is allowed.',
    );
  }
  return () => execFileSync('umount', [dir]);
}

/** Every regular file under `dir`, as absolute paths. */
export function walkFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    // A running sync may rename or remove a file between the listing and the stat.
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) out.push(...walkFiles(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

/** File contents as written, and decompressed when gzip (a spool file cut short by a kill decompresses partly). */
export function readableText(path: string): string {
  const raw = readFileSync(path);
  if (raw[0] !== 0x1f || raw[1] !== 0x8b) return raw.toString('latin1');
  return raw.toString('latin1') + gunzipSync(raw, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
}

/**
 * Every place under `dir` (files, read with readableText) and in `texts` (log
 * output, query results) where one of `needles` appears, as `name` (the file's
 * path relative to `dir`, or the text's name).
 */
export function findNeedles(dir: string, texts: Record<string, string>, needles: readonly string[]): string[] {
  const holds = (text: string) => needles.some((needle) => text.includes(needle));
  const found = Object.entries(texts)
    .filter(([, text]) => holds(text))
    .map(([name]) => name);
  for (const path of walkFiles(dir)) if (holds(readableText(path))) found.push(relative(dir, path));
  return found;
}

/**
 * Committed key-value state, every scope (kv_state and the per-conversation
 * tables), one `scope<TAB>key<TAB>value` line per key, sorted, bytes in hex:
 * equal before and after a failed run means "state untouched".
 */
export function kvState(statePath: string): string[] {
  if (!existsSync(statePath)) return [];
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    const store = createKvStore({ db });
    const text = (v: unknown) => (typeof v === 'string' ? v : Buffer.from(v as Uint8Array).toString('hex'));
    const lines = (db.prepare('SELECT scope, key, value FROM kv_state').all() as Row[]).map(
      (r) => `${r.scope}\t${r.key}\t${text(r.value)}`,
    );
    for (const scope of Object.values(CONVERSATION_SCOPES)) {
      for (const key of store.keys(scope)) lines.push(`${scope}\t${key}\t${text(store.get(scope, key))}`);
    }
    return lines.sort();
  } finally {
    db.close();
  }
}

/** Keys of the files the state calls committed (relative to the destination). */
export function committedFileKeys(statePath: string): string[] {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT key FROM files WHERE status = 'committed' ORDER BY key").all() as Row[]).map(
      (r) => r.key as string,
    );
  } finally {
    db.close();
  }
}

/** State never runs ahead of output: every file the state calls committed is in `outDir`. */
export function expectStateBehindOutput(statePath: string, outDir: string): void {
  const present = new Set(walkFiles(outDir).map((p) => relative(outDir, p)));
  for (const key of committedFileKeys(statePath)) expect(present.has(key), `committed ${key} missing`).toBe(true);
}

/** Every manifest under `outDir`; no file may be listed by two of them. */
export function expectNoFileListedTwice(manifests: Array<{ files: Array<{ key: string }> }>): void {
  const keys = manifests.flatMap((m) => m.files.map((f) => f.key));
  expect(keys.length).toBeGreaterThan(0);
  expect(new Set(keys).size).toBe(keys.length);
}

/** The merged tables of `got` equal those of `want`, table by table, row by row (run metadata aside). */
export function expectSameMergedOutput(got: Record<string, Row[]>, want: Record<string, Row[]>): void {
  for (const table of Object.keys(TABLES) as TableName[]) {
    const pk = [...TABLES[table]];
    const a = merged(got[table], pk);
    const b = merged(want[table], pk);
    expect(new Set(a.keys()), `${table} keys`).toEqual(new Set(b.keys()));
    for (const [key, row] of b) expect(content(a.get(key) as Row), `${table} ${key}`).toEqual(content(row));
  }
}

/** A clean first sync of the env's sandbox into a directory of its own: the reference output. */
export async function referenceOutput(env: SyncEnv, name = 'reference'): Promise<Record<string, Row[]>> {
  const outDir = join(env.dir, `${name}-out`);
  await env.sync({
    destination: { type: 'local', path: outDir },
    state: { path: join(env.dir, `${name}-state`, 'state.sqlite') },
  });
  return readTables(outDir);
}

/** Changes `n` conversations through the API, so the next sync has rows to write. */
export async function touchConversations(env: SyncEnv, n: number, label: string): Promise<void> {
  const body = (await api(env.sandbox, 'POST', '/search', { page: 1, per_page: 100 })) as {
    data: { conversations: { data: Row[] } };
  };
  for (const item of body.data.conversations.data.slice(0, n)) {
    await api(env.sandbox, 'PATCH', `/conversation/${item.id}`, { subject: `${label} ${item.id}` });
  }
}

/**
 * Runs the built CLI (dist/) in a child process, optionally as another user
 * through setpriv (a user who may not write where root may).
 */
export function runBuiltCli(
  args: string[],
  options: { asUser?: string; env?: NodeJS.ProcessEnv; onStart?: (child: ChildProcess) => void } = {},
): Promise<CliResult> {
  const node = [process.execPath, join(ROOT, 'dist', 'cli', 'main.js'), ...args];
  const [command, ...rest] = options.asUser
    ? ['setpriv', `--reuid=${options.asUser}`, '--regid=nogroup', '--clear-groups', ...node]
    : node;
  return runProcess(command as string, rest, { cwd: ROOT, env: options.env, onStart: options.onStart });
}

/**
 * Runs the built CLI and SIGKILLs it as soon as `reached()` holds (polled every
 * few milliseconds from its start); the caller checks it was killed.
 */
export function runBuiltCliKilledWhen(
  args: string[],
  reached: () => boolean,
  options: { env?: NodeJS.ProcessEnv; everyMs?: number } = {},
): Promise<CliResult> {
  return runBuiltCli(args, {
    env: options.env,
    onStart: (child) => {
      const timer = setInterval(() => {
        if (reached()) {
          child.kill('SIGKILL');
          clearInterval(timer);
        }
      }, options.everyMs ?? 5);
      child.on('close', () => clearInterval(timer));
    },
  });
}
