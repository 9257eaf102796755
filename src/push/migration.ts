/**
 * The push mapping table (design.md §7): config key → remote id, and the hash of
 * the normalized form last applied (drift = the remote form no longer matches it).
 * Idempotent, so it may run both from the numbered migration list (src/state/migrations.ts,
 * version 2 creates the same table) and on its own for a bare database.
 */
export const PUSH_RESOURCES_MIGRATION = `
CREATE TABLE IF NOT EXISTS push_resources (
  kind TEXT NOT NULL CHECK (kind IN ('business_hours', 'holiday')),
  key TEXT NOT NULL,
  remote_id TEXT NOT NULL,
  applied_hash TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);
`;
