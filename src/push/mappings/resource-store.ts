/** Which kind of remote object a mapping points at. */
export type ResourceKind = 'business_hours' | 'holiday';

/** One row of push_resources: a config key, its remote id and what was last applied to it. */
export interface ResourceRecord {
  kind: ResourceKind;
  key: string;
  remote_id: string;
  /** formHash of the normalized form last written (or adopted). */
  applied_hash: string;
  /** ISO timestamp of that write. */
  applied_at: string;
}

/** The persistence push needs; SQLite in production (sqlite-resource-store.ts), memory in tests. */
export interface ResourceStore {
  get(kind: ResourceKind, key: string): ResourceRecord | undefined;
  list(kind: ResourceKind): ResourceRecord[];
  put(record: ResourceRecord): void;
  delete(kind: ResourceKind, key: string): void;
}

export function createMemoryResourceStore(initial: ResourceRecord[] = []): ResourceStore {
  const rows = new Map<string, ResourceRecord>();
  const id = (kind: ResourceKind, key: string) => `${kind}\u0000${key}`;
  for (const r of initial) rows.set(id(r.kind, r.key), { ...r });
  return {
    get: (kind, key) => {
      const r = rows.get(id(kind, key));
      return r ? { ...r } : undefined;
    },
    list: (kind) =>
      [...rows.values()]
        .filter((r) => r.kind === kind)
        .map((r) => ({ ...r }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    put: (record) => void rows.set(id(record.kind, record.key), { ...record }),
    delete: (kind, key) => void rows.delete(id(kind, key)),
  };
}

/**
 * Carries the mapping of `from` over to `to` (same remote object, same applied
 * hash): a renamed key keeps its object. Nothing to do when `from` is unmapped.
 */
export function moveMapping(store: ResourceStore, kind: ResourceKind, from: string, to: string): void {
  const old = store.get(kind, from);
  if (!old) return;
  store.put({ ...old, key: to });
  store.delete(kind, from);
}
