import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { canonicalJson } from '../../../src/canonical-json.js';
import { TABLES, type TableName } from '../../../src/output/tables.js';

/** Columns that say when and by which run a row was written, not what it holds. */
const RUN_COLUMNS = new Set(['_synced_at', '_run_id']);

function dataFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.jsonl.gz') && !relative(dir, path).startsWith('_')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * Every row of an output directory as a warehouse merge keeps it (per table and
 * primary key, the row with the latest `_synced_at`; tombstones kept as rows
 * with `_deleted`), each reduced to a hash of its content without `_synced_at`
 * and `_run_id`, in a SQLite file: outputs of millions of rows are compared on
 * disk, not in memory.
 */
export async function digestOutput(outDir: string, dbPath: string): Promise<{ rows: number }> {
  const db = new Database(dbPath);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE rows (tbl TEXT NOT NULL, pk TEXT NOT NULL, synced_at TEXT NOT NULL, seq INTEGER NOT NULL,
    hash TEXT NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID`);
  const upsert = db.prepare(`INSERT INTO rows VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, pk) DO UPDATE SET
    synced_at = excluded.synced_at, seq = excluded.seq, hash = excluded.hash
    WHERE (excluded.synced_at, excluded.seq) > (rows.synced_at, rows.seq)`);
  let rows = 0;
  let batch: unknown[][] = [];
  const flush = db.transaction((items: unknown[][]) => {
    for (const item of items) upsert.run(...item);
  });
  for (const path of dataFiles(outDir)) {
    const table = relative(outDir, path).split('/')[0] as TableName;
    const key = TABLES[table];
    const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      const row = JSON.parse(line) as Record<string, unknown>;
      const content = Object.fromEntries(Object.entries(row).filter(([k]) => !RUN_COLUMNS.has(k)));
      const hash = createHash('sha1').update(canonicalJson(content)).digest('base64');
      batch.push([table, JSON.stringify(key.map((k) => row[k])), String(row._synced_at), rows, hash]);
      rows += 1;
      if (batch.length >= 10_000) {
        flush(batch);
        batch = [];
      }
    }
  }
  flush(batch);
  db.close();
  return { rows };
}

export interface DigestDifference {
  table: string;
  /** Keys whose merged row is only in the first output, only in the second, or in both with another content. */
  onlyFirst: number;
  onlySecond: number;
  differing: number;
  /** A few keys of each, to look at. */
  examples: string[];
}

/** Per table, how two digests differ; empty when every key's merged row is the same. */
export function compareDigests(first: string, second: string): DigestDifference[] {
  const db = new Database(first, { readonly: true });
  db.prepare('ATTACH DATABASE ? AS b').run(second);
  const kinds = {
    onlyFirst:
      'SELECT a.tbl, a.pk FROM main.rows a WHERE NOT EXISTS (SELECT 1 FROM b.rows x WHERE x.tbl = a.tbl AND x.pk = a.pk)',
    onlySecond:
      'SELECT x.tbl, x.pk FROM b.rows x WHERE NOT EXISTS (SELECT 1 FROM main.rows a WHERE x.tbl = a.tbl AND x.pk = a.pk)',
    differing:
      'SELECT a.tbl, a.pk FROM main.rows a JOIN b.rows x ON x.tbl = a.tbl AND x.pk = a.pk WHERE x.hash <> a.hash',
  } as const;
  const byTable = new Map<string, DigestDifference>();
  for (const [kind, sql] of Object.entries(kinds) as Array<[keyof typeof kinds, string]>) {
    const counts = db.prepare(`SELECT tbl, count(*) AS n FROM (${sql}) GROUP BY tbl`).all() as Array<{
      tbl: string;
      n: number;
    }>;
    for (const { tbl, n } of counts) {
      const e = byTable.get(tbl) ?? { table: tbl, onlyFirst: 0, onlySecond: 0, differing: 0, examples: [] };
      byTable.set(tbl, e);
      e[kind] = n;
      const some = db.prepare(`SELECT pk FROM (${sql}) WHERE tbl = ? LIMIT 3`).pluck().all(tbl) as string[];
      e.examples.push(...some.map((pk) => `${kind} ${pk}`));
    }
  }
  db.close();
  return [...byTable.values()];
}
