import type { EntryRef } from '../files/issue-path.js';
import type { ResourceKind } from '../mappings/resource-store.js';
import type { ChannelRef, HolidayForm, ProfileForm } from './normalize.js';

export type Form = ProfileForm | HolidayForm;

/** A remote object in normalized form. */
export interface RemoteObject<F extends Form = Form> {
  id: string;
  form: F;
}

/**
 * One step of the plan. `create`/`update`/`delete` write to the API; `adopt`
 * (take over an identical or named remote object), `forget` (drop a mapping
 * whose object is gone everywhere) and `refresh` (record that the remote
 * already matches) only touch state. `refresh` is not a change. `move` carries
 * a mapping from an older key (`from`) to the current one, so a renamed key is
 * an update of the same object, never a delete and a create.
 */
export type PlanAction =
  | { op: 'create'; kind: ResourceKind; key: string; ref: EntryRef; after: Form; drift?: 'deleted' }
  | {
      op: 'update';
      kind: ResourceKind;
      key: string;
      ref?: EntryRef;
      remote_id: string;
      before: Form;
      after: Form;
      fields: string[];
      /** Changed in the UI since the last apply. */
      drift?: 'changed';
      /** Taken over through `adopt:` in this apply. */
      adopted?: true;
      /** A profile removed from the config that gives up channels the config now claims. */
      release?: true;
    }
  | { op: 'delete'; kind: ResourceKind; key?: string; remote_id: string; before: Form; reason: 'removed' | 'unmanaged' }
  | { op: 'adopt'; kind: ResourceKind; key: string; ref: EntryRef; remote_id: string; form: Form }
  | { op: 'forget'; kind: ResourceKind; key: string; remote_id: string }
  | { op: 'refresh'; kind: ResourceKind; key: string; remote_id: string; form: Form }
  | { op: 'move'; kind: ResourceKind; from: string; key: string; remote_id: string };

/** A remote object outside the config: unmanaged, or managed but removed from the config. */
export interface RemoteSummary {
  kind: ResourceKind;
  /** The config key it was managed under (removed entries only). */
  key?: string;
  remote_id: string;
  form: Form;
}

export interface DriftItem {
  kind: ResourceKind;
  key: string;
  remote_id: string;
  what: 'changed' | 'deleted';
  /** Fields where the remote object differs from what the config asks. */
  fields: string[];
}

/** A channel the config claims that an unmanaged profile holds; apply cannot proceed without --prune-unmanaged or adopt. */
export interface Blocker {
  key: string;
  ref: EntryRef;
  channel: ChannelRef;
  holder_id: string;
  holder_name: string;
}

/** A config profile whose channels are all held by one unmanaged remote profile: the line that adopts it. */
export interface AdoptHint {
  key: string;
  ref: EntryRef;
  remote_id: string;
  remote_name: string;
  line: string;
}

/** What a plan deletes: objects of entries removed from the config, and objects never managed. */
export interface Prune {
  removed: boolean;
  unmanaged: boolean;
}

export interface Plan {
  /** Deletes the remote objects of entries removed from the config (`--prune`). */
  prune: boolean;
  /** Also deletes remote objects the config never managed (`--prune-unmanaged`). */
  prune_unmanaged: boolean;
  /** Managed kinds; a kind whose file is not configured is neither read nor changed. */
  kinds: ResourceKind[];
  actions: PlanAction[];
  unmanaged: RemoteSummary[];
  removed: RemoteSummary[];
  drift: DriftItem[];
  blockers: Blocker[];
  adopt_hints: AdoptHint[];
  /** Things left out of the desired state on purpose, e.g. timed events of an .ics source. */
  warnings?: string[];
}

/** A plan with nothing in it yet, for the kinds and prune flags given. */
export function emptyPlan(prune: Prune, kinds: ResourceKind[] = []): Plan {
  return {
    prune: prune.removed,
    prune_unmanaged: prune.unmanaged,
    kinds,
    actions: [],
    unmanaged: [],
    removed: [],
    drift: [],
    blockers: [],
    adopt_hints: [],
  };
}

/** Whether the plan changes anything (state-only `refresh` does not count; a `move` does: it must be applied). */
export function planHasChanges(plan: Plan): boolean {
  return plan.actions.some((a) => a.op !== 'refresh');
}

export function countActions(plan: Plan): Record<'create' | 'update' | 'delete' | 'adopt' | 'forget' | 'move', number> {
  const counts = { create: 0, update: 0, delete: 0, adopt: 0, forget: 0, move: 0 };
  for (const a of plan.actions) if (a.op !== 'refresh') counts[a.op] += 1;
  return counts;
}
