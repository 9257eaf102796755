import { PushStateEditError } from '../errors.js';
import { moveMapping, type ResourceKind, type ResourceStore } from './resource-store.js';

/** The kinds as `state rm` / `state mv` take them. */
export const PUSH_STATE_KINDS: readonly ResourceKind[] = ['business_hours', 'holiday'];

function mapped(store: ResourceStore, kind: ResourceKind, key: string) {
  const record = store.get(kind, key);
  if (!record) {
    const known = store.list(kind).map((r) => r.key);
    throw new PushStateEditError(
      `state maps no ${kind} key "${key}"${known.length > 0 ? ` (mapped: ${known.join(', ')})` : ' (none mapped)'}`,
    );
  }
  return record;
}

/**
 * Forgets a key's mapping; the remote object stays as it is. The next plan
 * sees it as unmanaged (an identical holiday is adopted again).
 */
export function removePushMapping(store: ResourceStore, kind: ResourceKind, key: string): string {
  const record = mapped(store, kind, key);
  store.delete(kind, key);
  return `removed ${kind} "${key}" from state (remote object ${record.remote_id} left as it is)`;
}

/** Gives a key's mapping a new key, as `moved:` does at apply; a target already mapped is refused. */
export function movePushMapping(store: ResourceStore, kind: ResourceKind, from: string, to: string): string {
  const record = mapped(store, kind, from);
  if (store.get(kind, to)) throw new PushStateEditError(`state already maps ${kind} key "${to}"; state rm it first`);
  moveMapping(store, kind, from, to);
  return `moved ${kind} "${from}" to "${to}" (remote object ${record.remote_id})`;
}
