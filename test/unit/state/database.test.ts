import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateError } from '../../../src/errors.js';
import { openStateDb } from '../../../src/state/database.js';
import { LATEST_VERSION, MIGRATIONS, runMigrations } from '../../../src/state/migrations.js';

/** Every table of a migrated state database, by name. */
const STATE_TABLES = [
  'checkpoints',
  'conversation_state',
  'files',
  'kv_state',
  'pending_state',
  'push_resources',
  'run_traffic',
  'runs',
  'thread_state',
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-db-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tables = (db: Database.Database) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );

describe('openStateDb', () => {
  it('creates the file 0600 in a 0700 directory, in WAL with synchronous FULL, migrated', () => {
    const path = join(dir, 'nested', 'state.sqlite');
    const state = openStateDb(path);
    try {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
      expect(state.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(state.db.pragma('synchronous', { simple: true })).toBe(2);
      expect(state.db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
      expect(state.version).toBe(LATEST_VERSION);
      expect(tables(state.db)).toEqual(STATE_TABLES);
    } finally {
      state.close();
    }
  });

  it('reopens an existing database without re-running migrations and keeps its data', () => {
    const path = join(dir, 'state.sqlite');
    const first = openStateDb(path);
    first.db.prepare("INSERT INTO kv_state VALUES ('s', 'k', 'v')").run();
    first.close();
    const second = openStateDb(path);
    expect(second.db.prepare('SELECT value FROM kv_state').pluck().get()).toBe('v');
    second.close();
  });

  it('refuses a database written by a newer binary', () => {
    const path = join(dir, 'state.sqlite');
    const raw = new Database(path);
    raw.pragma(`user_version = ${LATEST_VERSION + 1}`);
    raw.close();
    expect(() => openStateDb(path)).toThrow(StateError);
    expect(() => openStateDb(path)).toThrow(/newer than this binary knows/);
  });

  it('wraps an unreadable file in StateError', () => {
    const path = join(dir, 'garbage.sqlite');
    writeFileSync(path, 'this is not a database at all, not even close, really not'.repeat(20));
    expect(() => openStateDb(path)).toThrow(StateError);
  });
});

describe('runMigrations', () => {
  it('runs each step in a transaction with its version: a failing step leaves the previous version', () => {
    const db = new Database(':memory:');
    const broken = [
      ...MIGRATIONS,
      { version: LATEST_VERSION + 1, description: 'broken', up: 'CREATE TABLE x (; nonsense' },
    ];
    expect(() => runMigrations(db, ':memory:', broken)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    expect(tables(db)).toContain('push_resources');
    db.close();
  });

  it('skips a step another connection ran since this one read the version (a reader opening beside a first sync)', () => {
    const path = join(dir, 'state.sqlite');
    const reader = new Database(path);
    const writer = new Database(path);
    // The writer migrates the whole file after the reader has read version 0, before its first step.
    let raced = false;
    const racing = Object.assign([...MIGRATIONS], {
      [Symbol.iterator]() {
        if (!raced) {
          raced = true;
          runMigrations(writer, path);
        }
        return MIGRATIONS[Symbol.iterator]();
      },
    });
    try {
      expect(runMigrations(reader, path, racing)).toBe(LATEST_VERSION);
      expect(raced).toBe(true);
      expect(reader.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
      expect(tables(reader)).toEqual(STATE_TABLES);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
