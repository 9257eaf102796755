import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { canonicalJson } from '../../canonical-json.js';
import { VERSION } from '../../version.js';
import { PlanStaleError, SavedPlanFileError } from '../errors.js';
import { describeRemoteMoves, type PlanFingerprint } from './plan-fingerprint.js';
import type { Plan } from './plan-types.js';
import { writeWholeFile } from './write-whole-file.js';

/**
 * A plan saved by `plan --out FILE` for `apply --plan FILE`: the plan a person
 * reviewed, with what it was computed from (see plan-fingerprint.ts). Apply
 * computes the plan again under the state lock and goes ahead only when it
 * comes out the same from the same inputs: same push files, same live objects,
 * same state. Anything that moved since is a refusal naming what moved, never
 * a silent re-plan.
 */
export interface SavedPlan extends PlanFingerprint {
  format: typeof FORMAT;
  version: 1;
  helpdesk_sync_version: string;
  created_at: string;
  /** The commit it was planned at, when known (CI). */
  commit?: string;
  plan: Plan;
}

const FORMAT = 'helpdesk-sync saved plan';

const savedPlanSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  helpdesk_sync_version: z.string(),
  created_at: z.string(),
  commit: z.string().optional(),
  desired_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  remote_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  remote_objects: z.record(z.string(), z.string()),
  plan: z.looseObject({ prune: z.boolean(), prune_unmanaged: z.boolean(), actions: z.array(z.unknown()) }),
});

export function savedPlanOf(
  plan: Plan,
  fingerprint: PlanFingerprint,
  context: { now: Date; commit?: string },
): SavedPlan {
  return {
    format: FORMAT,
    version: 1,
    helpdesk_sync_version: VERSION,
    created_at: context.now.toISOString(),
    ...(context.commit ? { commit: context.commit } : {}),
    ...fingerprint,
    plan,
  };
}

/** Writes the file whole or not at all. */
export function writeSavedPlan(path: string, saved: SavedPlan): void {
  writeWholeFile(path, `${JSON.stringify(saved, null, 2)}\n`, 'the plan');
}

/** Reads a saved plan; a file that is not one is refused before anything is read from the API. */
export function readSavedPlan(path: string): SavedPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SavedPlanFileError(`cannot read the saved plan ${path}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SavedPlanFileError(`${path} is not a saved plan (not JSON); make one with plan --out`);
  }
  const parsed = savedPlanSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join('.') || '(top)').join(', ');
    throw new SavedPlanFileError(`${path} is not a saved plan of this version (${where}); make one with plan --out`);
  }
  return parsed.data as unknown as SavedPlan;
}

/** At most this many moved objects are named in a refusal; the rest are counted. */
const NAMED_MOVES = 10;

/**
 * Refuses (PlanStaleError) unless the plan computed now, from inputs with this
 * fingerprint, is the saved one. Checked in the order that best says why.
 */
export function checkSavedPlanStillHolds(saved: SavedPlan, plan: Plan, now: PlanFingerprint): void {
  const at = saved.commit ? ` (planned at commit ${saved.commit})` : '';
  if (now.desired_sha256 !== saved.desired_sha256) {
    throw new PlanStaleError(
      `the saved plan no longer applies: the push files differ from those it was made from${at}; make a new plan`,
    );
  }
  if (now.remote_sha256 !== saved.remote_sha256) {
    const moves = describeRemoteMoves(saved.remote_objects, now.remote_objects);
    const named = moves.slice(0, NAMED_MOVES).join(', ');
    const more = moves.length > NAMED_MOVES ? ` and ${moves.length - NAMED_MOVES} more` : '';
    throw new PlanStaleError(
      `the saved plan no longer applies: the helpdesk or the state changed since it was made${at} (${named}${more}); make a new plan`,
      { moved: moves },
    );
  }
  if (canonicalJson(plan) !== canonicalJson(saved.plan)) {
    throw new PlanStaleError(
      `the saved plan no longer applies: the plan made now from the same inputs differs (made by helpdesk-sync ${saved.helpdesk_sync_version}, this is ${VERSION}); make a new plan`,
    );
  }
}
