import { API_ERROR_CODES, type ApiObject, isApiError } from '../../api/index.js';
import { type Clock, isoNow } from '../../clock.js';
import { PushBlockedError } from '../errors.js';
import { moveMapping, type ResourceKind, type ResourceStore } from '../mappings/resource-store.js';
import { formHash, remoteHolidayForm, remoteProfileForm } from '../plan/normalize.js';
import type { Form, Plan } from '../plan/plan-types.js';
import type { PushApi } from '../plan/push-api.js';
import { type ApplyStep, applySteps } from './apply-steps.js';
import { describeWriteFailure, type InboxNames } from './describe-write-failure.js';

export interface ApplyDeps {
  api: PushApi;
  store: ResourceStore;
  /** Time recorded with each applied step. */
  clock: Pick<Clock, 'now'>;
  inboxNames?: InboxNames;
  /** Called after each completed step (progress output). */
  onStep?: (step: ApplyStep) => void;
  /** Stops before the next step (daemon shutdown); the report says what was not applied. */
  signal?: AbortSignal;
}

export interface ApplyReport {
  applied: ApplyStep[];
  failed?: { step: ApplyStep; message: string; error: unknown };
  /** Steps not attempted because an earlier one failed. */
  pending: ApplyStep[];
}

/** 5xx, timeouts and resets leave a write's outcome unknown: re-read before doing anything else. */
const outcomeUnknown = (error: unknown) => isApiError(error) && error.retriable;

const formOf = (kind: ResourceKind, raw: ApiObject): Form =>
  kind === 'business_hours' ? remoteProfileForm(raw) : remoteHolidayForm(raw);

function kindApi(api: PushApi, kind: ResourceKind) {
  return kind === 'business_hours'
    ? {
        list: () => api.listBusinessHours(),
        get: (id: string) => api.getBusinessHours(id),
        create: api.createBusinessHours.bind(api),
        update: api.updateBusinessHours.bind(api),
        remove: (id: string) => api.deleteBusinessHours(id),
      }
    : {
        list: () => api.listHolidays(),
        get: (id: string) => api.getHoliday(id),
        create: api.createHoliday.bind(api),
        update: api.updateHoliday.bind(api),
        remove: (id: string) => api.deleteHoliday(id),
      };
}

/**
 * Runs a write; when its outcome is unknown, re-reads: if the effect is there
 * the write counts as done, otherwise (known not applied) it is sent once more.
 * Writes are never retried blindly (docs/rate-limits.md, "Retries").
 */
async function reconciled<T>(write: () => Promise<T>, effect: () => Promise<{ value: T } | undefined>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!outcomeUnknown(error)) throw error;
    const seen = await effect();
    if (seen) return seen.value;
    return write();
  }
}

async function runStep(step: ApplyStep, deps: ApplyDeps, knownIds: Set<string>): Promise<void> {
  const k = kindApi(deps.api, step.kind);
  const record = (remoteId: string, form: Form) =>
    deps.store.put({
      kind: step.kind,
      key: step.key!,
      remote_id: remoteId,
      applied_hash: formHash(form),
      applied_at: isoNow(deps.clock),
    });
  const matches = (raw: ApiObject | null | undefined) =>
    raw && formHash(formOf(step.kind, raw)) === formHash(step.form!);

  if (step.op === 'adopt' || step.op === 'refresh') return record(step.remote_id!, step.form!);
  if (step.op === 'forget') return deps.store.delete(step.kind, step.key!);
  if (step.op === 'move') return moveMapping(deps.store, step.kind, step.from!, step.key!);
  if (step.op === 'create') {
    const created = await reconciled(
      () => k.create(step.body as never),
      // The created object is the one with the wanted form that nobody knew before this apply.
      async () => {
        const found = (await k.list()).find((r) => !knownIds.has(String(r.id)) && matches(r));
        return found ? { value: found } : undefined;
      },
    );
    const id = String(created.id);
    knownIds.add(id);
    return record(id, step.form!);
  }
  if (step.op === 'update') {
    await reconciled(
      () => k.update(step.remote_id!, step.body as never),
      async () => {
        const now = await k.get(step.remote_id!);
        return matches(now) ? { value: now! } : undefined;
      },
    );
    return record(step.remote_id!, step.form!);
  }
  try {
    await reconciled(
      () => k.remove(step.remote_id!),
      async () => ((await k.get(step.remote_id!)) === null ? { value: undefined } : undefined),
    );
  } catch (error) {
    // Already gone (deleted elsewhere since the plan) is what a delete wants.
    if (!(isApiError(error) && error.code === API_ERROR_CODES.notFound)) throw error;
  }
  if (step.unmap) deps.store.delete(step.kind, step.key!);
}

/**
 * Executes a plan in phases (see apply-steps.ts), recording each completed
 * write in the resource store at once, so that a failure in the middle leaves
 * state matching what was really applied and the next apply converges.
 * Stops at the first failed step and reports what was applied and what was not.
 */
export async function applyPlan(plan: Plan, deps: ApplyDeps): Promise<ApplyReport> {
  if (plan.blockers.length > 0) {
    const lines = plan.blockers.map(
      (b) =>
        `${b.key}: channel ${b.channel.inbox_id} ${b.channel.channel} is held by unmanaged profile "${b.holder_name}" (${b.holder_id})`,
    );
    throw new PushBlockedError(
      `nothing applied; the plan is blocked:\n  ${lines.join('\n  ')}\nadopt the profile (see plan) or run apply --prune-unmanaged`,
    );
  }
  const steps = applySteps(plan);
  const knownIds = new Set<string>([
    ...plan.unmanaged.map((u) => u.remote_id),
    ...plan.removed.map((r) => r.remote_id),
    ...plan.actions.flatMap((a) => ('remote_id' in a ? [a.remote_id] : [])),
    ...deps.store.list('business_hours').map((r) => r.remote_id),
    ...deps.store.list('holiday').map((r) => r.remote_id),
  ]);
  const report: ApplyReport = { applied: [], pending: [] };
  for (const [i, step] of steps.entries()) {
    if (deps.signal?.aborted) {
      const message = 'stopped before this step: the process is shutting down; apply again to converge';
      report.failed = { step, message, error: deps.signal.reason };
      report.pending = steps.slice(i + 1);
      return report;
    }
    try {
      await runStep(step, deps, knownIds);
    } catch (error) {
      report.failed = { step, message: describeWriteFailure(step, error, deps.inboxNames ?? new Map()), error };
      report.pending = steps.slice(i + 1);
      return report;
    }
    report.applied.push(step);
    deps.onStep?.(step);
  }
  return report;
}
