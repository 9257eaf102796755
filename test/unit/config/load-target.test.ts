import { describe, expect, it } from 'vitest';
import { describeLoadTarget, LOAD_TARGET_FORMS, parseLoadTarget } from '../../../src/config/load-target.js';

describe('what --into and load.into take', () => {
  it.each(['warehouse.duckdb', './data/helpdesk.db', '/srv/wh/HELPDESK.DUCKDB'])(
    'a bare path ending in .duckdb or .db is a DuckDB file: %s',
    (path) => {
      const parsed = parseLoadTarget(path);
      expect(parsed).toEqual({ target: { kind: 'duckdb', path } });
      if ('target' in parsed) expect(describeLoadTarget(parsed.target)).toBe(`duckdb:${path}`);
    },
  );

  it('as duckdb:<path> is, and a postgres:// string is PostgreSQL', () => {
    expect(parseLoadTarget('duckdb:wh.data')).toEqual({ target: { kind: 'duckdb', path: 'wh.data' } });
    expect(parseLoadTarget('postgres://db/wh')).toEqual({ target: { kind: 'postgres', url: 'postgres://db/wh' } });
  });

  it.each(['warehouse.sqlite', 'mysql://db/x.db', 'warehouse'])(
    'anything else is refused, naming the forms: %s',
    (text) => {
      expect(parseLoadTarget(text)).toEqual({ problem: LOAD_TARGET_FORMS });
    },
  );
});
