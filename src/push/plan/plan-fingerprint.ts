import { canonicalHash } from '../../canonical-json.js';
import type { ResourceRecord } from '../mappings/resource-store.js';
import type { DesiredState, InboxInfo } from './build-desired-state.js';
import type { RemoteState } from './read-remote.js';

/**
 * What a plan was computed from, reduced to hashes, so a saved plan can tell
 * whether the same plan would still come out: the desired state (the push files
 * as resolved, which the library version behind calendar sources also shapes)
 * and the remote side (every live object in normalized form, the inboxes, and
 * the key → id mappings in state). Each remote object keeps its own short hash,
 * so a refusal can say which objects moved.
 */
export interface PlanFingerprint {
  desired_sha256: string;
  remote_sha256: string;
  /** `holiday 123`, `business_hours 7`, `inbox 2`, `state holiday xmas` → a 16-character hash of its form. */
  remote_objects: Record<string, string>;
}

export interface PlanInputs {
  desired: DesiredState;
  remote: RemoteState;
  inboxes: InboxInfo[];
  mappings: { businessHours: ResourceRecord[]; holidays: ResourceRecord[] };
}

const short = (value: unknown) => canonicalHash(value).slice(0, 16);

export function fingerprintPlanInputs(inputs: PlanInputs): PlanFingerprint {
  const objects: Record<string, string> = {};
  for (const p of inputs.remote.businessHours ?? []) objects[`business_hours ${p.id}`] = short(p.form);
  for (const h of inputs.remote.holidays ?? []) objects[`holiday ${h.id}`] = short(h.form);
  for (const i of inputs.inboxes) objects[`inbox ${i.id}`] = short(i.name);
  // Mapping and applied hash only: applied_at changes with every apply that re-records an
  // unchanged object, and what it says is already in the rest.
  for (const m of [...inputs.mappings.businessHours, ...inputs.mappings.holidays]) {
    objects[`state ${m.kind} ${m.key}`] = short({ remote_id: m.remote_id, applied_hash: m.applied_hash });
  }
  const sorted = Object.fromEntries(Object.entries(objects).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    desired_sha256: canonicalHash(inputs.desired),
    remote_sha256: canonicalHash(sorted),
    remote_objects: sorted,
  };
}

/** What differs between two remote fingerprints, in words: `holiday 123 changed`, `inbox 4 added`. */
export function describeRemoteMoves(before: Record<string, string>, now: Record<string, string>): string[] {
  const moves: string[] = [];
  for (const [name, hash] of Object.entries(now)) {
    if (!(name in before)) moves.push(`${name} added`);
    else if (before[name] !== hash) moves.push(`${name} changed`);
  }
  for (const name of Object.keys(before)) if (!(name in now)) moves.push(`${name} removed`);
  return moves.sort();
}
