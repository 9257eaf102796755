import type { InboxNames } from '../apply/describe-write-failure.js';
import type { EntryRef } from '../files/issue-path.js';
import type { ResourceKind } from '../mappings/resource-store.js';
import type { ChannelRef, DayHours, ProfileForm } from '../plan/normalize.js';
import {
  countActions,
  type Form,
  type Plan,
  type PlanAction,
  planHasChanges,
  type RemoteSummary,
} from '../plan/plan-types.js';

const isProfile = (f: Form): f is ProfileForm => 'type' in f;
const day = (d: DayHours) => (d.start === null ? 'closed' : `${d.start}-${d.end}`);

function channels(list: ChannelRef[], names: InboxNames): string {
  if (list.length === 0) return 'no channels';
  return list
    .map((c) => `${names.has(c.inbox_id) ? `"${names.get(c.inbox_id)}"` : c.inbox_id} ${c.channel}`)
    .join(', ');
}

/** One-line description of a whole object. */
export function describeForm(form: Form, names: InboxNames): string {
  if (!isProfile(form))
    return `"${form.name}" ${form.start_date}${form.end_date === form.start_date ? '' : ` to ${form.end_date}`}`;
  const schedule = form.weekly_schedule
    ? `; ${form.weekly_schedule.map((d) => `${d.day.slice(0, 3)} ${day(d)}`).join(', ')}`
    : '';
  return `"${form.name}" ${form.type}${schedule}; ${channels(form.inbox_channels, names)}`;
}

/** What happens to the objects of one list: deleted by this plan, or which flag would delete them. */
export function pruneNote(plan: Plan, list: 'removed' | 'unmanaged'): string {
  const [deletes, flag] = list === 'removed' ? [plan.prune, '--prune'] : [plan.prune_unmanaged, '--prune-unmanaged'];
  return deletes ? `deleted by this plan (${flag})` : `left alone; apply ${flag} deletes them`;
}

/** One changed field as `field: before -> after`, hours and channels spelled out. */
export function fieldChange(field: string, before: Form, after: Form, names: InboxNames): string {
  if (isProfile(before) && isProfile(after)) {
    if (field.startsWith('schedule.')) {
      const d = field.slice('schedule.'.length);
      const b = before.weekly_schedule?.find((x) => x.day === d);
      const a = after.weekly_schedule?.find((x) => x.day === d);
      return `${field}: ${b ? day(b) : '-'} -> ${a ? day(a) : '-'}`;
    }
    if (field === 'channels') {
      const id = (c: ChannelRef) => `${c.inbox_id} ${c.channel}`;
      const had = new Set(before.inbox_channels.map(id));
      const has = new Set(after.inbox_channels.map(id));
      const added = after.inbox_channels.filter((c) => !had.has(id(c)));
      const gone = before.inbox_channels.filter((c) => !has.has(id(c)));
      return `channels: ${[added.length ? `+ ${channels(added, names)}` : '', gone.length ? `- ${channels(gone, names)}` : ''].filter(Boolean).join('; ')}`;
    }
    if (field === 'schedule') {
      const week = (f: typeof before) =>
        f.weekly_schedule ? f.weekly_schedule.map((d) => `${d.day.slice(0, 3)} ${day(d)}`).join(', ') : 'none';
      return `schedule: ${week(before)} -> ${week(after)}`;
    }
  }
  const value = (f: Form) => JSON.stringify((f as unknown as Record<string, unknown>)[field]);
  return `${field}: ${value(before)} -> ${value(after)}`;
}

/** `, 3 to move` when keys are renamed; nothing otherwise, so the usual headline stays as it was. */
export const moveCount = (n: number) => (n > 0 ? `, ${n} to move` : '');

/** `  (from calendar DE-BY 2026)` for an entry expanded from a source, else nothing. */
export function originNote(ref: EntryRef | undefined): string {
  return ref?.origin ? `  (from ${ref.origin})` : '';
}

function actionLine(a: PlanAction, names: InboxNames): string[] {
  const who = (key: string | undefined, id?: string) => `${key ? `"${key}"` : '(unmanaged)'}${id ? ` [${id}]` : ''}`;
  switch (a.op) {
    case 'create':
      return [
        `  + create  ${who(a.key)}  ${describeForm(a.after, names)}${a.drift ? '  (deleted in the UI since the last apply: re-created)' : ''}${originNote(a.ref)}`,
      ];
    case 'update': {
      const why = a.release
        ? '  (removed from the config; gives up channels the config claims)'
        : a.adopted
          ? '  (adopted through `adopt:`)'
          : a.drift
            ? '  (changed in the UI since the last apply: restored)'
            : '';
      return [
        `  ~ update  ${who(a.key, a.remote_id)}${why}${originNote(a.ref)}`,
        ...a.fields.map((f) => `      ${fieldChange(f, a.before, a.after, names)}`),
      ];
    }
    case 'delete':
      return [
        `  - delete  ${who(a.key, a.remote_id)}  ${describeForm(a.before, names)}  (${a.reason === 'removed' ? 'removed from the config; --prune' : 'unmanaged; --prune-unmanaged'})`,
      ];
    case 'adopt':
      return [
        `  = adopt   ${who(a.key, a.remote_id)}  ${describeForm(a.form, names)}  (identical remote object, recorded in state only)${originNote(a.ref)}`,
      ];
    case 'forget':
      return [`  . forget  ${who(a.key, a.remote_id)}  (gone remotely and from the config; state only)`];
    case 'move':
      return [`  > move    ${who(a.key, a.remote_id)}  (key renamed from "${a.from}"; state only)`];
    case 'refresh':
      return [];
  }
}

const TITLES: Record<ResourceKind, string> = { business_hours: 'Business hours', holiday: 'Holidays' };

function summaries(title: string, items: RemoteSummary[], names: InboxNames): string[] {
  if (items.length === 0) return [];
  return [
    title,
    ...items.map((u) => `  ${u.kind} ${u.key ? `"${u.key}" ` : ''}[${u.remote_id}]  ${describeForm(u.form, names)}`),
  ];
}

/** The plan as people read it (stdout of `plan` and of `apply` before it asks). */
export function formatPlan(plan: Plan, names: InboxNames = new Map()): string {
  const lines: string[] = [];
  for (const kind of plan.kinds) {
    const actions = plan.actions.filter((a) => a.kind === kind).flatMap((a) => actionLine(a, names));
    lines.push(`${TITLES[kind]}: ${actions.length === 0 ? 'no changes' : ''}`.trimEnd(), ...actions);
  }
  lines.push(...summaries(`Unmanaged remote objects (${pruneNote(plan, 'unmanaged')}):`, plan.unmanaged, names));
  lines.push(...summaries(`Removed from the config (${pruneNote(plan, 'removed')}):`, plan.removed, names));
  const drift = plan.drift.map(
    (d) =>
      `  ${d.kind} "${d.key}" [${d.remote_id}] ${d.what === 'deleted' ? 'deleted' : `changed (${d.fields.join(', ')})`} in the UI since the last apply`,
  );
  if (drift.length > 0) lines.push('Drift:', ...drift);
  for (const h of plan.adopt_hints) {
    lines.push(
      `Adopt instead of create: every channel of ${h.ref.file}, ${h.ref.list}[${h.ref.index}] (key "${h.key}") is held by unmanaged profile "${h.remote_name}" [${h.remote_id}]. To take it over, add this line to that entry:`,
      `    ${h.line}`,
    );
  }
  const blockers = plan.blockers.map(
    (b) =>
      `  "${b.key}": ${channels([b.channel], names)} is held by unmanaged profile "${b.holder_name}" [${b.holder_id}]`,
  );
  if (blockers.length > 0)
    lines.push(
      'Blocked (apply refuses until resolved: adopt the holder with `adopt:`, run apply --prune-unmanaged, or leave the channel out):',
      ...blockers,
    );
  if (plan.warnings?.length) lines.push('Skipped:', ...plan.warnings.map((w) => `  ${w}`));
  const c = countActions(plan);
  lines.push(
    planHasChanges(plan)
      ? `Plan: ${c.create} to create, ${c.update} to update, ${c.delete} to delete, ${c.adopt} to adopt, ${c.forget} to forget${moveCount(c.move)}.`
      : 'No changes: the remote business hours and holidays match the configuration.',
  );
  return `${lines.join('\n')}\n`;
}
