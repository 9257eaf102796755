import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerSchemasCommand, renderSchemas } from '../../../src/cli/commands/schemas.js';
import { UsageError } from '../../../src/errors.js';
import { primaryKeyOf } from '../../../src/output/json-schema.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { renderDdl, renderWarehouseDdl } from '../../../src/warehouse/ddl.js';
import { DIALECT_NAMES, DIALECTS } from '../../../src/warehouse/dialects.js';
import { typedColumns } from '../../../src/warehouse/table-columns.js';

describe('renderDdl', () => {
  it.each(DIALECT_NAMES)('%s: keyed and _batch table per table, no _raw; only the keyed one has the key', (dialect) => {
    expect(renderDdl(DIALECTS[dialect]).match(/CREATE TABLE IF NOT EXISTS /g)).toHaveLength(TABLE_NAMES.length);
    const ddl = renderWarehouseDdl(DIALECTS[dialect]);
    expect(ddl.match(/CREATE TABLE IF NOT EXISTS /g)).toHaveLength(2 * TABLE_NAMES.length);
    for (const t of TABLE_NAMES) {
      for (const name of [t, `${t}_batch`]) expect(ddl).toContain(`CREATE TABLE IF NOT EXISTS ${name} (`);
    }
    expect(ddl).not.toContain('_raw');
    expect(ddl.match(/ _synced_at /g)).toHaveLength(2 * TABLE_NAMES.length);
    if (dialect === 'duckdb') {
      // No constraint (its index would have to fit in memory); the key stays documented.
      expect(ddl).not.toContain('PRIMARY KEY');
      expect(ddl).toContain('Primary key: _account, inbox_id, date (no constraint: the merge keeps one row per key).');
      return;
    }
    // The account first: the accounts of a config share the tables, and their ids may meet.
    const notEnforced = dialect === 'bigquery' ? ' NOT ENFORCED' : '';
    expect(ddl).toContain(`  PRIMARY KEY (_account, id)${notEnforced}\n)`);
    expect(ddl).toContain(`  PRIMARY KEY (_account, inbox_id, date)${notEnforced}\n)`);
    expect(ddl).not.toContain('PRIMARY KEY (id)');
    expect(ddl.match(/PRIMARY KEY/g)).toHaveLength(TABLE_NAMES.length);
  });

  it('bigquery partitions keyed tables by the day of _synced_at and clusters them by the key', () => {
    const ddl = renderWarehouseDdl(DIALECTS.bigquery, ['report_productivity_daily']);
    expect(ddl.match(/\)\nPARTITION BY DATE\(_synced_at\)\nCLUSTER BY _account, inbox_id, date;/g)).toHaveLength(1);
    expect(ddl).toMatch(/CREATE TABLE IF NOT EXISTS report_productivity_daily_batch \([^;]*\n\);/);
  });

  it('snowflake clusters by key only the keyed tables that grow with conversations', () => {
    expect(renderWarehouseDdl(DIALECTS.snowflake, ['messages'])).toContain(
      '  PRIMARY KEY (_account, id)\n)\nCLUSTER BY (_account, id);',
    );
    expect(renderWarehouseDdl(DIALECTS.snowflake, ['messages']).match(/CLUSTER BY/g)).toHaveLength(1);
    expect(renderWarehouseDdl(DIALECTS.snowflake, ['tags'])).not.toContain('CLUSTER BY');
  });

  it('maps column kinds to each warehouse’s types', () => {
    const find = (d: (typeof DIALECT_NAMES)[number], name: string) =>
      typedColumns(DIALECTS[d].types, 'conversations').find((c) => c.name === name)!.type;
    expect(['created_at', 'agents', 'custom_field_values', 'ticket_id'].map((n) => find('duckdb', n))).toEqual([
      'TIMESTAMPTZ',
      'VARCHAR[]',
      'JSON',
      'BIGINT',
    ]);
    expect(['created_at', 'agents', 'custom_field_values'].map((n) => find('bigquery', n))).toEqual([
      'TIMESTAMP',
      'ARRAY<STRING>',
      'JSON',
    ]);
    expect(['created_at', 'agents', 'custom_field_values'].map((n) => find('snowflake', n))).toEqual([
      'TIMESTAMP_TZ',
      'ARRAY',
      'VARIANT',
    ]);
    expect(['created_at', 'agents', 'custom_field_values'].map((n) => find('postgres', n))).toEqual([
      'timestamptz',
      'text[]',
      'jsonb',
    ]);
    expect(
      typedColumns(DIALECTS.postgres.types, 'conversations')
        .filter((c) => c.notNull)
        .map((c) => c.name),
    ).toEqual(['id', '_synced_at', '_run_id', '_deleted', '_account']);
  });

  it('duckdb adds a read_<table>(files) macro with the DDL column types', () => {
    expect(renderDdl(DIALECTS.duckdb, ['tags'])).toContain(
      "CREATE OR REPLACE MACRO read_tags(files) AS TABLE\n  SELECT * FROM read_json(files, format = 'newline_delimited', hive_partitioning = false, columns = {id: 'VARCHAR', inbox_id: 'VARCHAR', name: 'VARCHAR', color: 'VARCHAR', _synced_at: 'TIMESTAMPTZ', _run_id: 'VARCHAR', _deleted: 'BOOLEAN', _extra: 'JSON', _account: 'VARCHAR'});",
    );
  });
});

describe('schemas command', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  it('prints JSON Schema of every table by default, or one table', () => {
    const all = JSON.parse(renderSchemas('jsonschema')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(all)).toEqual(TABLE_NAMES);
    expect(primaryKeyOf(all.report_productivity_daily!)).toEqual(['_account', 'inbox_id', 'date']);
    expect(JSON.parse(renderSchemas('jsonschema', 'tags')).title).toBe('tags');
    expect(() => renderSchemas('postgres', 'nope')).toThrow(UsageError);
  });

  it('--merge prints the dedup query and the MERGE of each table', () => {
    const sql = renderSchemas('snowflake', 'tags', { merge: true });
    expect(sql).toContain(
      'QUALIFY ROW_NUMBER() OVER (PARTITION BY _account, id ORDER BY _synced_at DESC, _run_id DESC) = 1',
    );
    expect(sql).toContain('MERGE INTO tags AS t');
    expect(sql).toContain('ON t._account = s._account AND t.id = s.id\n');
    expect(sql).toContain('WHEN MATCHED AND s._synced_at >= t._synced_at AND s._deleted THEN DELETE');
    // The key is never updated; the account is inserted with the row.
    expect(sql).toMatch(/UPDATE SET inbox_id = s\.inbox_id, .*_extra = s\._extra\n/);
    expect(sql).toContain('INSERT (id, inbox_id, name, color, _synced_at, _run_id, _deleted, _extra, _account)');
    expect(renderSchemas('bigquery', 'tags', { merge: true })).toContain(
      'QUALIFY ROW_NUMBER() OVER (PARTITION BY _account, id ORDER BY _synced_at DESC, _run_id DESC) = 1',
    );
    expect(renderSchemas('postgres', 'report_productivity_daily', { merge: true })).toContain(
      'NOT EXISTS (SELECT 1 FROM report_productivity_daily AS t WHERE t._account = s._account AND t.inbox_id = s.inbox_id AND t.date = s.date)',
    );
    const postgres = renderSchemas('postgres', 'tags', { merge: true });
    expect(postgres).toContain(
      'SELECT DISTINCT ON (_account, id) * FROM tags_batch ORDER BY _account, id, _synced_at DESC',
    );
    expect(postgres).toContain('WHERE t._account = s._account AND t.id = s.id AND s._synced_at >= t._synced_at;');
    const duckdb = renderSchemas('duckdb', 'tags', { merge: true });
    expect(duckdb).toContain(
      'WHERE _account IS NOT NULL AND id IS NOT NULL AND (_account, id) NOT IN (SELECT _account, id FROM tags_batch WHERE _account IS NOT NULL AND id IS NOT NULL GROUP BY _account, id HAVING count(*) > 1)',
    );
    expect(duckdb).toContain(
      '(s._account IS NULL OR s.id IS NULL OR (s._account, s.id) NOT IN (SELECT t._account, t.id FROM tags AS t WHERE (t._account, t.id) IN (SELECT _account, id FROM tags_batch)))',
    );
    expect(() => renderSchemas('jsonschema', undefined, { merge: true })).toThrow(UsageError);
  });

  it('is a commander command printing the chosen format to stdout', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    const program = new Command().exitOverride().configureOutput({ writeErr: () => undefined });
    registerSchemasCommand(program);
    await program.parseAsync(['node', 'helpdesk-sync', 'schemas', '--format', 'postgres', '--table', 'holidays']);
    expect(out.join('')).toContain('CREATE TABLE IF NOT EXISTS holidays (\n  id text NOT NULL,');
    expect(process.exitCode).toBe(0);
    await expect(program.parseAsync(['node', 'helpdesk-sync', 'schemas', '--format', 'oracle'])).rejects.toThrow(
      /Allowed choices/,
    );
  });

  it('--format dbt writes the dbt fragment under --out, and needs --out', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = new Command().exitOverride().configureOutput({ writeErr: () => undefined });
    registerSchemasCommand(program);
    const dir = mkdtempSync(join(tmpdir(), 'hs-dbt-cli-'));
    try {
      await program.parseAsync(['node', 'helpdesk-sync', 'schemas', '--format', 'dbt', '--out', dir]);
      expect(process.exitCode).toBe(0);
      const written = out.join('').trim().split('\n');
      // Per table a staging model and its key test; two yml files; the history model and its two yml files.
      expect(written).toHaveLength(2 * TABLE_NAMES.length + 5);
      expect(readFileSync(join(dir, 'models/staging/helpdesk/stg_helpdesk__tags.sql'), 'utf8')).toContain(
        "from {{ source('helpdesk', 'tags') }}",
      );
      await program.parseAsync(['node', 'helpdesk-sync', 'schemas', '--format', 'dbt']);
      expect(process.exitCode).toBe(64);
      await program.parseAsync(['node', 'helpdesk-sync', 'schemas', '--format', 'duckdb', '--out', dir]);
      expect(process.exitCode).toBe(64);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
