import type { BusinessHoursWrite, HolidayWrite } from '../../api/index.js';
import type { EntryRef } from '../files/issue-path.js';
import type { ResourceKind } from '../mappings/resource-store.js';
import type { ChannelRef, HolidayForm, ProfileForm } from '../plan/normalize.js';
import type { Form, Plan, PlanAction } from '../plan/plan-types.js';

/**
 * One request (or state-only record) of an apply, in execution order. Phases
 * (docs/hours-and-holidays.md) make channel moves conflict-free: 0 state only, 1 release
 * channels, 2 delete profiles, 3 create and claim, 4 holidays.
 */
export interface ApplyStep {
  phase: 0 | 1 | 2 | 3 | 4;
  op: 'create' | 'update' | 'delete' | 'adopt' | 'forget' | 'refresh' | 'move';
  kind: ResourceKind;
  key?: string;
  /** `move` only: the older key whose mapping becomes `key`'s. */
  from?: string;
  ref?: EntryRef;
  remote_id?: string;
  /** The form the remote object has once this step is done (what applied_hash records). */
  form?: Form;
  body?: BusinessHoursWrite | HolidayWrite;
  /** Whether the key's mapping is dropped once done (a managed object deleted, or a stale mapping). */
  unmap?: boolean;
  label: string;
}

export function profileBody(form: ProfileForm): BusinessHoursWrite {
  return {
    name: form.name,
    type: form.type,
    // calendar_24_7: no schedule at all; an explicit null would be ignored anyway (PATCH semantics).
    ...(form.type === 'business_hours' && form.weekly_schedule ? { weekly_schedule: form.weekly_schedule } : {}),
    inbox_channels: form.inbox_channels,
  };
}

/** Holiday writes always carry both dates, so a range can move past its old end in one PATCH. */
export function holidayBody(form: HolidayForm): HolidayWrite {
  return { name: form.name, start_date: form.start_date, end_date: form.end_date };
}

const body = (kind: ResourceKind, form: Form) =>
  kind === 'business_hours' ? profileBody(form as ProfileForm) : holidayBody(form as HolidayForm);

const channelId = (c: ChannelRef) => `${c.inbox_id}\u0000${c.channel}`;

function label(a: PlanAction): string {
  const who = 'key' in a && a.key ? `"${a.key}"` : '(unmanaged)';
  const id = 'remote_id' in a ? ` ${a.remote_id}` : '';
  return `${a.op} ${a.kind} ${who}${id}`;
}

/** A profile update that drops channels and also claims others is split: drop first, claim in phase 3. */
function profileUpdateSteps(a: Extract<PlanAction, { op: 'update' }>): ApplyStep[] {
  const before = a.before as ProfileForm;
  const after = a.after as ProfileForm;
  const keep = new Set(after.inbox_channels.map(channelId));
  const had = new Set(before.inbox_channels.map(channelId));
  const releases = before.inbox_channels.some((c) => !keep.has(channelId(c)));
  const claims = after.inbox_channels.some((c) => !had.has(channelId(c)));
  const base = { op: 'update' as const, kind: a.kind, key: a.key, ref: a.ref, remote_id: a.remote_id, label: label(a) };
  if (a.release) return [{ ...base, phase: 1, form: after, body: { inbox_channels: after.inbox_channels } }];
  if (!releases) return [{ ...base, phase: 3, form: after, body: profileBody(after) }];
  if (!claims) return [{ ...base, phase: 1, form: after, body: profileBody(after) }];
  const kept = before.inbox_channels.filter((c) => keep.has(channelId(c)));
  return [
    {
      ...base,
      phase: 1,
      form: { ...before, inbox_channels: kept },
      body: { inbox_channels: kept },
      label: `${label(a)} (release channels)`,
    },
    { ...base, phase: 3, form: after, body: profileBody(after) },
  ];
}

function stepsOf(a: PlanAction): ApplyStep[] {
  const profile = a.kind === 'business_hours';
  switch (a.op) {
    case 'adopt':
    case 'refresh':
      return [{ phase: 0, op: a.op, kind: a.kind, key: a.key, remote_id: a.remote_id, form: a.form, label: label(a) }];
    case 'move':
      return [
        { phase: 0, op: 'move', kind: a.kind, key: a.key, from: a.from, remote_id: a.remote_id, label: label(a) },
      ];
    case 'forget':
      return [
        { phase: 0, op: 'forget', kind: a.kind, key: a.key, remote_id: a.remote_id, unmap: true, label: label(a) },
      ];
    case 'create':
      return [
        {
          phase: profile ? 3 : 4,
          op: 'create',
          kind: a.kind,
          key: a.key,
          ref: a.ref,
          form: a.after,
          body: body(a.kind, a.after),
          label: label(a),
        },
      ];
    case 'update':
      return profile
        ? profileUpdateSteps(a)
        : [
            {
              phase: 4,
              op: 'update',
              kind: a.kind,
              key: a.key,
              ref: a.ref,
              remote_id: a.remote_id,
              form: a.after,
              body: body(a.kind, a.after),
              label: label(a),
            },
          ];
    case 'delete':
      return [
        {
          phase: profile ? 2 : 4,
          op: 'delete',
          kind: a.kind,
          key: a.key,
          remote_id: a.remote_id,
          unmap: a.key !== undefined,
          label: label(a),
        },
      ];
  }
}

/** Every step of the plan, ordered by phase (stable within a phase). */
export function applySteps(plan: Plan): ApplyStep[] {
  return plan.actions.flatMap(stepsOf).sort((x, y) => x.phase - y.phase);
}
