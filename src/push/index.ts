/**
 * The front door of hours and holidays as code: the CLI imports from here, never
 * from a room inside. A push runs through its rooms in order:
 * - `files/`: the holidays and business-hours files read and validated, every
 *   problem at once (`files/holiday-sources/` expands `calendar:` and `ics:`);
 * - `mappings/`: which remote object each key stands for (state's push_resources);
 * - `plan/`: the remote objects read, the pure diff, the plan saved for review;
 * - `apply/`: the plan's writes in an order that never conflicts;
 * - `report/`: the plan and the apply's outcome as text and Markdown.
 * `run-push.ts` runs plan and apply; `push-job.ts` builds what they need.
 */

export { PLAN_FORMATS, type PlanFormat } from './choices.js';
export { movePushMapping, PUSH_STATE_KINDS, removePushMapping } from './mappings/edit-push-state.js';
export type { ResourceKind, ResourceStore } from './mappings/resource-store.js';
export { checkPushFiles } from './plan/check-push-files.js';
export { readSavedPlan } from './plan/saved-plan.js';
export { writeWholeFile } from './plan/write-whole-file.js';
export { applyJob, editPushStateJob, withPushDeps } from './push-job.js';
export {
  type ApplyOutcome,
  formatApplyOutcomeMarkdown,
  refusedOutcome,
} from './report/apply-outcome-markdown.js';
export type { PlanContext } from './report/format-plan-markdown.js';
export { runApply, runPlan } from './run-push.js';
