import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { DUCKDB } from '../../../src/warehouse/duckdb/duckdb-dialect.js';
import { historyConfigRule, historyHook, historyTables } from '../../../src/warehouse/history/history-tables.js';

const valid = { source: { base_url: 'https://api.example.com/v1', token: 'example-token' } };
const parse = (history: unknown) => parseConfig({ ...valid, load: { history } }, 'test.yaml', {}, [historyConfigRule]);

describe('load.history', () => {
  it('true covers every table, false none, a list its tables in table order', () => {
    expect(historyTables(true)).toEqual([...TABLE_NAMES]);
    expect(historyTables(false)).toEqual([]);
    expect(historyTables(undefined)).toEqual([]);
    expect(historyTables(['contacts', 'conversations'])).toEqual(['conversations', 'contacts']);
    expect(parse(['contacts']).load?.history).toEqual(['contacts']);
  });

  it('unknown tables are one configuration error (exit 64) naming each with its path', () => {
    let error: unknown;
    try {
      parse(['conversations', 'tickets', 'contacts', 'conversation']);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(64);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['load.history.1', 'load.history.3']);
    expect((error as ConfigError).issues[0]!.message).toMatch(
      /unknown table "tickets"; expected one of: conversations/,
    );
  });

  it('an empty history starts from _raw only where the target held it before this load; elsewhere from the keyed rows and the batch', () => {
    const hook = historyHook(DUCKDB, true, ['conversations_raw'])!;
    const statements = (table: 'conversations' | 'contacts') => hook(table)!.join('\n');
    expect(statements('conversations')).toContain('FROM conversations_raw');
    // contacts_raw is created by this load (keep_raw turned on): it holds this batch alone.
    expect(statements('contacts')).not.toContain('contacts_raw');
    expect(statements('contacts')).toMatch(/FROM contacts_batch UNION ALL SELECT .* FROM contacts k /);
    expect(historyHook(DUCKDB, false, ['conversations_raw'])).toBeUndefined();
  });
});
