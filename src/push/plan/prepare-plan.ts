import type { Config } from '../../config/schema.js';
import type { ResourceStore } from '../mappings/resource-store.js';
import { checkAdoptTargets } from './check-adopt-targets.js';
import { desiredStateOf, failOnIssues } from './desired-state-of.js';
import { computePlan } from './plan.js';
import { fingerprintPlanInputs, type PlanFingerprint } from './plan-fingerprint.js';
import type { Plan } from './plan-types.js';
import type { PushApi } from './push-api.js';
import { readRemote } from './read-remote.js';

export interface PreparedPlan {
  plan: Plan;
  /** Inbox id → name, for output. */
  inboxNames: Map<string, string>;
  /** What the plan was computed from, as hashes (a saved plan carries it; apply --plan compares it). */
  fingerprint: PlanFingerprint;
}

/**
 * Everything up to the plan, in the order that keeps mistakes cheap: static
 * validation of the files first (a problem there ends with exit 64 before any
 * request), then the reads (inboxes, profiles, holidays), then the checks that
 * need them, then the pure diff.
 */
export async function preparePlan(
  push: Config['push'],
  deps: { api: PushApi; store: ResourceStore },
  options: { prune?: boolean; pruneUnmanaged?: boolean } = {},
): Promise<PreparedPlan> {
  // Unknown inboxes end it here: the one read validation needs, and nothing more.
  const { files, inboxes, desired } = await desiredStateOf(push, deps.api);
  const remote = await readRemote(deps.api, {
    businessHours: Boolean(files.businessHours),
    holidays: Boolean(files.holidays),
  });
  const mappings = { businessHours: deps.store.list('business_hours'), holidays: deps.store.list('holiday') };
  if (desired.businessHours && remote.businessHours) {
    failOnIssues(push, checkAdoptTargets(desired.businessHours, remote.businessHours, mappings.businessHours));
  }
  const plan = computePlan({ desired, remote, mappings, prune: options.prune, pruneUnmanaged: options.pruneUnmanaged });
  if (files.holidays?.warnings) plan.warnings = files.holidays.warnings;
  return {
    plan,
    inboxNames: new Map(inboxes.map((i) => [i.id, i.name])),
    fingerprint: fingerprintPlanInputs({ desired, remote, inboxes, mappings }),
  };
}
