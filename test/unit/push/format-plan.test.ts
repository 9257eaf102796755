import { describe, expect, it } from 'vitest';
import { computePlan } from '../../../src/push/plan/plan.js';
import { formatPlan } from '../../../src/push/report/format-plan.js';
import { always, ch, holiday, hours, mapped, remote, wantHoliday, wantProfile } from './plan-fixtures.js';

describe('formatPlan', () => {
  it('prints each change with what differs, drift, unmanaged objects and the totals', () => {
    const eu = hours('EU', [ch('i-1')]);
    const plan = computePlan({
      desired: {
        businessHours: [wantProfile('eu', hours('EU', [ch('i-2', 'livechat')], '08:00'))],
        holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))],
      },
      remote: {
        businessHours: [remote('r1', { ...eu, name: 'EU (edited)' }), remote('r9', always('Other'))],
        holidays: [],
      },
      mappings: { businessHours: [mapped('business_hours', 'eu', 'r1', eu)], holidays: [] },
    });
    const names = new Map([
      ['i-1', 'Support'],
      ['i-2', 'Sales'],
    ]);
    expect(formatPlan(plan, names)).toBe(
      [
        'Business hours:',
        '  ~ update  "eu" [r1]  (changed in the UI since the last apply: restored)',
        '      name: "EU (edited)" -> "EU"',
        '      schedule.monday: 09:00-17:00 -> 08:00-17:00',
        '      schedule.tuesday: 09:00-17:00 -> 08:00-17:00',
        '      schedule.wednesday: 09:00-17:00 -> 08:00-17:00',
        '      schedule.thursday: 09:00-17:00 -> 08:00-17:00',
        '      schedule.friday: 09:00-17:00 -> 08:00-17:00',
        '      channels: + "Sales" livechat; - "Support" email',
        'Holidays:',
        '  + create  "ny"  "NY" 2027-01-01',
        'Unmanaged remote objects (left alone; apply --prune-unmanaged deletes them):',
        '  business_hours [r9]  "Other" calendar_24_7; no channels',
        'Drift:',
        '  business_hours "eu" [r1] changed (name, schedule.monday, schedule.tuesday, schedule.wednesday, schedule.thursday, schedule.friday, channels) in the UI since the last apply',
        'Plan: 1 to create, 1 to update, 0 to delete, 0 to adopt, 0 to forget.',
        '',
      ].join('\n'),
    );
  });

  it('says so when nothing changes', () => {
    const plan = computePlan({
      desired: { holidays: [] },
      remote: { holidays: [] },
      mappings: { businessHours: [], holidays: [] },
    });
    expect(formatPlan(plan)).toBe(
      'Holidays: no changes\nNo changes: the remote business hours and holidays match the configuration.\n',
    );
  });

  it('a profile that gains a weekly schedule shows the hours it gains, not just "weekly"', () => {
    const was = always('Support', [ch('i-1')]);
    const plan = computePlan({
      desired: { businessHours: [wantProfile('support', { ...hours('Support', [ch('i-1')]), name: 'Support' })] },
      remote: { businessHours: [remote('r1', was)] },
      mappings: { businessHours: [mapped('business_hours', 'support', 'r1', was)], holidays: [] },
    });
    expect(formatPlan(plan)).toMatch(/schedule: none -> mon 09:00-17:00, tue 09:00-17:00, .*sun closed/);
  });
});
