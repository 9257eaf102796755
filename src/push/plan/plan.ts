import type { ResourceKind, ResourceRecord } from '../mappings/resource-store.js';
import type { DesiredHoliday, DesiredProfile, DesiredState } from './build-desired-state.js';
import { diffFields } from './diff-fields.js';
import { formHash, type HolidayForm, type ProfileForm } from './normalize.js';
import { planChannelMoves } from './plan-channel-moves.js';
import {
  type DriftItem,
  emptyPlan,
  type Plan,
  type PlanAction,
  type Prune,
  type RemoteObject,
  type RemoteSummary,
} from './plan-types.js';

export interface PlanInput {
  desired: DesiredState;
  /** Live remote objects of each managed kind (undefined when the kind is not managed). */
  remote: { businessHours?: RemoteObject<ProfileForm>[]; holidays?: RemoteObject<HolidayForm>[] };
  mappings: { businessHours: ResourceRecord[]; holidays: ResourceRecord[] };
  /** Delete the remote objects of entries removed from the config (managed ones). @default false */
  prune?: boolean;
  /** Also delete remote objects the config never managed (implies prune). @default false */
  pruneUnmanaged?: boolean;
}

interface KindPlan {
  actions: PlanAction[];
  unmanaged: RemoteSummary[];
  removed: RemoteSummary[];
  drift: DriftItem[];
}

type Desired = DesiredProfile | DesiredHoliday;

/** Compares one desired entry with the remote object its key maps to. */
function compareMapped(
  kind: ResourceKind,
  d: Desired,
  mapping: ResourceRecord,
  remote: RemoteObject,
  out: KindPlan,
): void {
  const want = formHash(d.form);
  const have = formHash(remote.form);
  const drifted = have !== mapping.applied_hash;
  if (want === have) {
    if (mapping.applied_hash !== want)
      out.actions.push({ op: 'refresh', kind, key: d.key, remote_id: remote.id, form: d.form });
    return;
  }
  const fields = diffFields(remote.form, d.form);
  if (drifted) out.drift.push({ kind, key: d.key, remote_id: remote.id, what: 'changed', fields });
  out.actions.push({
    op: 'update',
    kind,
    key: d.key,
    ref: d.ref,
    remote_id: remote.id,
    before: remote.form,
    after: d.form,
    fields,
    ...(drifted ? { drift: 'changed' as const } : {}),
  });
}

/** An entry without a live remote object: adopt one (by `adopt:` or, for holidays, identical form) or create it. */
function placeUnmapped(
  kind: ResourceKind,
  d: Desired,
  candidates: Map<string, RemoteObject>,
  wasDeleted: boolean,
  out: KindPlan,
): void {
  // A key mapped before has had its adoption: its object deleted in the UI is re-created, not re-adopted.
  const named = !wasDeleted && 'adopt' in d && d.adopt ? candidates.get(d.adopt) : undefined;
  const identical =
    kind === 'holiday' ? [...candidates.values()].find((r) => formHash(r.form) === formHash(d.form)) : undefined;
  const target = named ?? identical;
  if (target) {
    candidates.delete(target.id);
    if (formHash(target.form) === formHash(d.form)) {
      out.actions.push({ op: 'adopt', kind, key: d.key, ref: d.ref, remote_id: target.id, form: d.form });
    } else {
      const fields = diffFields(target.form, d.form);
      out.actions.push({
        op: 'update',
        kind,
        key: d.key,
        ref: d.ref,
        remote_id: target.id,
        before: target.form,
        after: d.form,
        fields,
        adopted: true,
      });
    }
    return;
  }
  out.actions.push({
    op: 'create',
    kind,
    key: d.key,
    ref: d.ref,
    after: d.form,
    ...(wasDeleted ? { drift: 'deleted' as const } : {}),
  });
}

/**
 * The mapping of an older key of `d` (its aliases) when `d`'s own key has none:
 * planned as a move, and taken out of `mappingOf` so it is not also "removed".
 */
function movedMapping(
  kind: ResourceKind,
  d: Desired,
  wanted: Set<string>,
  mappingOf: Map<string, ResourceRecord>,
  out: KindPlan,
): ResourceRecord | undefined {
  const from = ('aliases' in d ? (d.aliases ?? []) : []).find((k) => !wanted.has(k) && mappingOf.has(k));
  if (from === undefined) return undefined;
  const old = mappingOf.get(from)!;
  mappingOf.delete(from);
  out.actions.push({ op: 'move', kind, from, key: d.key, remote_id: old.remote_id });
  return { ...old, key: d.key };
}

function planKind(
  kind: ResourceKind,
  desired: Desired[],
  remote: RemoteObject[],
  mappings: ResourceRecord[],
  prune: Prune,
): KindPlan {
  const out: KindPlan = { actions: [], unmanaged: [], removed: [], drift: [] };
  const byId = new Map(remote.map((r) => [r.id, r]));
  const wanted = new Set(desired.map((d) => d.key));
  const managedIds = new Set(mappings.filter((m) => byId.has(m.remote_id)).map((m) => m.remote_id));
  const mappingOf = new Map(mappings.map((m) => [m.key, m]));
  // Remote objects no mapping holds: candidates for adoption, else unmanaged.
  const candidates = new Map(remote.filter((r) => !managedIds.has(r.id)).map((r) => [r.id, r]));

  for (const d of desired) {
    const mapping = mappingOf.get(d.key) ?? movedMapping(kind, d, wanted, mappingOf, out);
    const live = mapping ? byId.get(mapping.remote_id) : undefined;
    if (mapping && live) compareMapped(kind, d, mapping, live, out);
    else {
      if (mapping) out.drift.push({ kind, key: d.key, remote_id: mapping.remote_id, what: 'deleted', fields: [] });
      placeUnmapped(kind, d, candidates, mapping !== undefined, out);
    }
  }
  for (const m of mappingOf.values()) {
    if (wanted.has(m.key)) continue;
    const live = byId.get(m.remote_id);
    if (!live) out.actions.push({ op: 'forget', kind, key: m.key, remote_id: m.remote_id });
    else {
      out.removed.push({ kind, key: m.key, remote_id: live.id, form: live.form });
      if (prune.removed)
        out.actions.push({ op: 'delete', kind, key: m.key, remote_id: live.id, before: live.form, reason: 'removed' });
    }
  }
  for (const r of candidates.values()) {
    out.unmanaged.push({ kind, remote_id: r.id, form: r.form });
    if (prune.unmanaged) out.actions.push({ op: 'delete', kind, remote_id: r.id, before: r.form, reason: 'unmanaged' });
  }
  return out;
}

/**
 * The pure diff (docs/hours-and-holidays.md): desired forms, live remote forms and the
 * key → remote id mappings in, the plan out. No I/O, so it is tested table-driven.
 */
export function computePlan(input: PlanInput): Plan {
  const unmanaged = input.pruneUnmanaged ?? false;
  const prune: Prune = { removed: unmanaged || (input.prune ?? false), unmanaged };
  const plan = emptyPlan(prune);
  const merge = (p: KindPlan) => {
    plan.actions.push(...p.actions);
    plan.unmanaged.push(...p.unmanaged);
    plan.removed.push(...p.removed);
    plan.drift.push(...p.drift);
  };
  if (input.desired.businessHours && input.remote.businessHours) {
    plan.kinds.push('business_hours');
    const profiles = planKind(
      'business_hours',
      input.desired.businessHours,
      input.remote.businessHours,
      input.mappings.businessHours,
      prune,
    );
    merge(profiles);
    const moves = planChannelMoves(input.desired.businessHours, input.remote.businessHours, profiles, prune);
    plan.actions.push(...moves.releases);
    plan.blockers.push(...moves.blockers);
    plan.adopt_hints.push(...moves.hints);
  }
  if (input.desired.holidays && input.remote.holidays) {
    plan.kinds.push('holiday');
    merge(planKind('holiday', input.desired.holidays, input.remote.holidays, input.mappings.holidays, prune));
  }
  return plan;
}
