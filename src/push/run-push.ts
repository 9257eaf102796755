import { rmSync } from 'node:fs';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { ExitCode } from '../errors.js';
import type { Logger } from '../log.js';
import { type ApplyReport, applyPlan } from './apply/apply.js';
import type { ApplyStep } from './apply/apply-steps.js';
import type { PlanFormat } from './choices.js';
import { PushApplyError, PushBlockedError, PushNotApprovedError } from './errors.js';
import type { ResourceStore } from './mappings/resource-store.js';
import { countActions, planHasChanges } from './plan/plan-types.js';
import { preparePlan } from './plan/prepare-plan.js';
import type { PushApi } from './plan/push-api.js';
import { checkSavedPlanStillHolds, type SavedPlan, savedPlanOf, writeSavedPlan } from './plan/saved-plan.js';
import type { ApplyOutcome } from './report/apply-outcome-markdown.js';
import { formatPlan } from './report/format-plan.js';
import { formatPlanMarkdown, type PlanContext } from './report/format-plan-markdown.js';

export interface PushDeps {
  api: PushApi;
  store: ResourceStore;
  clock: Pick<Clock, 'now'>;
  /** Human output (stdout). */
  out: (text: string) => void;
  /** Structured events (one summary per command). @default none */
  logger?: Logger;
  /** Stops an apply between steps (daemon shutdown). */
  signal?: AbortSignal;
}

export interface PlanOptions {
  /** Plan what `apply --prune` would do. @default false */
  prune?: boolean;
  /** Plan what `apply --prune-unmanaged` would do. @default false */
  pruneUnmanaged?: boolean;
  /** How to print the plan: text for a terminal, json for programs, markdown for a pull request. @default 'text' */
  format?: PlanFormat;
  /** Same as format 'json'. @default false */
  json?: boolean;
  /** Exit 2 when the plan has changes (0 none, 1 error). @default false */
  detailedExitcode?: boolean;
  /** Where the plan is made (a CI run's commit and link), shown in the Markdown plan. */
  context?: PlanContext;
  /** Save the plan here for `apply --plan` (not when it is blocked: such a plan cannot be applied). */
  out?: string;
}

/** `helpdesk-sync plan`: prints the plan; returns the exit code (see docs/hours-and-holidays.md). */
export async function runPlan(push: Config['push'], deps: PushDeps, options: PlanOptions = {}): Promise<number> {
  const { plan, inboxNames, fingerprint } = await preparePlan(push, deps, {
    prune: options.prune,
    pruneUnmanaged: options.pruneUnmanaged,
  });
  // A blocked plan cannot be applied: it is not saved, and a file left from an earlier plan must not pass for it.
  const savedTo = plan.blockers.length === 0 ? options.out : undefined;
  if (savedTo) {
    writeSavedPlan(
      savedTo,
      savedPlanOf(plan, fingerprint, { now: new Date(deps.clock.now()), commit: options.context?.commit }),
    );
  } else if (options.out) {
    rmSync(options.out, { force: true });
  }
  const format = options.json ? 'json' : (options.format ?? 'text');
  if (format === 'json') {
    const json = { ...plan, has_changes: planHasChanges(plan), summary: countActions(plan) };
    deps.out(`${JSON.stringify(json, null, 2)}\n`);
  } else if (format === 'markdown') deps.out(formatPlanMarkdown(plan, inboxNames, options.context));
  else deps.out(formatPlan(plan, inboxNames));
  deps.logger?.info(
    {
      event: 'push.plan',
      ...countActions(plan),
      drift: plan.drift.length,
      unmanaged: plan.unmanaged.length,
      blockers: plan.blockers.length,
      ...(savedTo ? { saved_to: savedTo } : {}),
    },
    'plan computed',
  );
  // A blocked plan cannot be applied as it stands: that is an error, not a diff.
  if (plan.blockers.length > 0) return ExitCode.failure;
  return options.detailedExitcode && planHasChanges(plan) ? ExitCode.planHasChanges : ExitCode.ok;
}

export interface ApplyOptions {
  /** Delete the remote objects of entries removed from the config. @default false */
  prune?: boolean;
  /** Also delete remote objects the config never managed (implies prune). @default false */
  pruneUnmanaged?: boolean;
  /** Apply without asking (CI). @default false */
  autoApprove?: boolean;
  /** Asks on the terminal; resolves true only for an explicit yes. Needed unless autoApprove. */
  confirm?: (question: string) => Promise<boolean>;
  /**
   * Apply this saved plan (`apply --plan`): the plan computed now must be the same, from the
   * same inputs, else nothing is applied (PlanStaleError). It is approved already: no question.
   */
  saved?: SavedPlan;
  /** Told how the apply ended when it got as far as writing (or found nothing to write). */
  onOutcome?: (outcome: ApplyOutcome) => void;
}

function failureReport(report: ApplyReport): string {
  const list = (steps: ApplyStep[]) => (steps.length ? steps.map((s) => `  ${s.label}`).join('\n') : '  (none)');
  return [
    `apply stopped: ${report.failed!.message}`,
    `Applied (${report.applied.length}):`,
    list(report.applied),
    `Not applied (${report.pending.length + 1}):`,
    list([report.failed!.step, ...report.pending]),
    'State records exactly what was applied: fix the cause and run apply again to converge.',
  ].join('\n');
}

/** `helpdesk-sync apply`: shows the plan, asks unless auto-approved, executes it in phases. */
export async function runApply(push: Config['push'], deps: PushDeps, options: ApplyOptions = {}): Promise<number> {
  const { saved } = options;
  const { plan, inboxNames, fingerprint } = await preparePlan(push, deps, {
    prune: saved ? saved.plan.prune : options.prune,
    pruneUnmanaged: saved ? saved.plan.prune_unmanaged : options.pruneUnmanaged,
  });
  if (saved) checkSavedPlanStillHolds(saved, plan, fingerprint);
  deps.out(formatPlan(plan, inboxNames));
  if (plan.blockers.length > 0) {
    throw new PushBlockedError(
      'nothing applied: the plan is blocked (see above); adopt the profile or run apply --prune-unmanaged',
    );
  }
  if (planHasChanges(plan) && !options.autoApprove && !saved) {
    const approved = options.confirm ? await options.confirm('Apply these changes? Only "yes" is accepted: ') : false;
    if (!approved) throw new PushNotApprovedError('apply cancelled: nothing was changed');
  }
  const report = await applyPlan(plan, {
    ...deps,
    inboxNames,
    onStep: (step) => {
      if (step.op !== 'refresh') deps.out(`  done: ${step.label}\n`);
    },
  });
  const writes = report.applied.filter((s) => s.op !== 'refresh').length;
  deps.logger?.info(
    { event: 'push.apply', applied: writes, failed: report.failed ? 1 : 0, not_attempted: report.pending.length },
    report.failed ? 'apply stopped at a failed step' : 'apply finished',
  );
  const labels = (steps: ApplyStep[]) => steps.filter((s) => s.op !== 'refresh').map((s) => s.label);
  if (report.failed) {
    options.onOutcome?.({
      result: 'stopped',
      applied: labels(report.applied),
      notApplied: labels([report.failed.step, ...report.pending]),
      reason: report.failed.message,
    });
    throw new PushApplyError(failureReport(report), { cause: report.failed.error });
  }
  options.onOutcome?.(
    planHasChanges(plan) ? { result: 'applied', applied: labels(report.applied) } : { result: 'nothing' },
  );
  deps.out(planHasChanges(plan) ? `Apply complete: ${writes} step(s) done.\n` : 'Nothing to apply.\n');
  return ExitCode.ok;
}
