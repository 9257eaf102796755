import type { Database } from 'better-sqlite3';
import type { ResourceKind, ResourceRecord, ResourceStore } from './resource-store.js';

/**
 * push_resources in the state database (created by migration 2 of
 * src/state/migrations.ts). Each put/delete is its own statement
 * (autocommit), so a failure in the middle of an apply keeps every write that
 * already succeeded recorded, and the next apply converges from there.
 */
export function createSqliteResourceStore(db: Database): ResourceStore {
  const getStmt = db.prepare<[string, string], ResourceRecord>(
    'SELECT kind, key, remote_id, applied_hash, applied_at FROM push_resources WHERE kind = ? AND key = ?',
  );
  const listStmt = db.prepare<[string], ResourceRecord>(
    'SELECT kind, key, remote_id, applied_hash, applied_at FROM push_resources WHERE kind = ? ORDER BY key',
  );
  const putStmt = db.prepare<[string, string, string, string, string]>(
    `INSERT INTO push_resources (kind, key, remote_id, applied_hash, applied_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, key) DO UPDATE SET remote_id = excluded.remote_id,
       applied_hash = excluded.applied_hash, applied_at = excluded.applied_at`,
  );
  const deleteStmt = db.prepare<[string, string]>('DELETE FROM push_resources WHERE kind = ? AND key = ?');
  return {
    get: (kind: ResourceKind, key: string) => getStmt.get(kind, key),
    list: (kind: ResourceKind) => listStmt.all(kind),
    put: (r: ResourceRecord) => void putStmt.run(r.kind, r.key, r.remote_id, r.applied_hash, r.applied_at),
    delete: (kind: ResourceKind, key: string) => void deleteStmt.run(kind, key),
  };
}
