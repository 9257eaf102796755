import type { ConfigIssue } from '../../errors.js';
import { entryLabel, issuePath } from '../files/issue-path.js';
import type { ResourceRecord } from '../mappings/resource-store.js';
import type { DesiredProfile } from './build-desired-state.js';
import type { RemoteObject } from './plan-types.js';

/**
 * `adopt:` must name a live remote profile that no other key manages, and at
 * most one entry may name it. Checked after the read, before any write.
 * An entry whose key is already mapped ignores `adopt:`: the adoption took
 * place, and once that profile is deleted in the UI the plan re-creates it.
 */
export function checkAdoptTargets(
  desired: DesiredProfile[],
  remote: RemoteObject[],
  mappings: ResourceRecord[],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const live = new Set(remote.map((r) => r.id));
  const mappedBy = new Map(mappings.filter((m) => live.has(m.remote_id)).map((m) => [m.remote_id, m.key]));
  const firstAdopter = new Map<string, DesiredProfile>();
  for (const d of desired) {
    if (!d.adopt) continue;
    if (mappings.some((m) => m.key === d.key)) continue;
    const path = issuePath(d.ref, ['adopt']);
    if (!live.has(d.adopt)) issues.push({ path, message: `no business-hours profile with id ${d.adopt}` });
    else if (mappedBy.has(d.adopt))
      issues.push({ path, message: `profile ${d.adopt} is already managed under key "${mappedBy.get(d.adopt)}"` });
    else if (firstAdopter.has(d.adopt))
      issues.push({
        path,
        message: `profile ${d.adopt} is already adopted by ${entryLabel(firstAdopter.get(d.adopt)!.ref)}`,
      });
    else firstAdopter.set(d.adopt, d);
  }
  return issues;
}
