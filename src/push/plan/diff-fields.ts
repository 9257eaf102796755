import { canonicalJson } from '../../canonical-json.js';
import type { HolidayForm, ProfileForm } from './normalize.js';
import type { Form } from './plan-types.js';

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** Names of the fields where `before` and `after` differ (`schedule.friday`, `channels`, `end_date`...). */
export function diffFields(before: Form, after: Form): string[] {
  if ('type' in before && 'type' in after) return diffProfiles(before, after);
  const b = before as HolidayForm;
  const a = after as HolidayForm;
  return (['name', 'start_date', 'end_date'] as const).filter((f) => b[f] !== a[f]);
}

function diffProfiles(before: ProfileForm, after: ProfileForm): string[] {
  const fields: string[] = [];
  if (before.name !== after.name) fields.push('name');
  if (before.type !== after.type) fields.push('type');
  if (!same(before.weekly_schedule, after.weekly_schedule)) {
    if (before.weekly_schedule && after.weekly_schedule) {
      after.weekly_schedule.forEach((day, i) => {
        if (!same(day, before.weekly_schedule![i])) fields.push(`schedule.${day.day}`);
      });
    } else fields.push('schedule');
  }
  if (!same(before.inbox_channels, after.inbox_channels)) fields.push('channels');
  return fields;
}
