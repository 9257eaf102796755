import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StateCorruptError, StateStorageError } from '../../../src/errors.js';
import { explainStateError } from '../../../src/state/explain-state-error.js';

const place = { what: 'state database', path: '/var/lib/hs/state.sqlite', setting: 'state.path', recovery: 'Move it.' };

/** A real SQLITE_FULL: a database not allowed to grow past a few pages, as on a full disk. */
function diskFullError(): unknown {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (v TEXT)');
  db.pragma('max_page_count = 8');
  try {
    for (let i = 0; i < 1000; i++) db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(1000));
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('the database never filled up');
}

describe('explainStateError', () => {
  it('a full disk: names the file and the setting, and what to do', () => {
    const error = explainStateError(diskFullError(), place);
    expect(error).toBeInstanceOf(StateStorageError);
    expect((error as Error).message).toBe(
      'state database /var/lib/hs/state.sqlite (state.path): no space left on device (database or disk is full); ' +
        'free space there and run again',
    );
  });

  it('a corrupt file: names it, says so, and gives the recovery', () => {
    const raw = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    const error = explainStateError(raw, place);
    expect(error).toBeInstanceOf(StateCorruptError);
    expect((error as StateCorruptError).code).toBe('STATE_CORRUPT');
    expect((error as Error).message).toBe(
      'state database /var/lib/hs/state.sqlite (state.path) is corrupted (database disk image is malformed). Move it.',
    );
    expect((error as Error).cause).toBe(raw);
  });

  it('leaves any other error as it is: only SQLite codes say for sure which file failed', () => {
    const other = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(explainStateError(other, place)).toBe(other);
    const bug = new TypeError('x is undefined');
    expect(explainStateError(bug, place)).toBe(bug);
  });
});
