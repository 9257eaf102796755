import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DesiredHoliday } from '../../../src/push/build-desired-state.js';
import { formatPlanMarkdown } from '../../../src/push/format-plan-markdown.js';
import { computePlan } from '../../../src/push/plan.js';
import { always, ch, holiday, hours, mapped, remote, wantHoliday, wantProfile } from './plan-fixtures.js';

const fromCalendar = (key: string, form: ReturnType<typeof holiday>, origin: string): DesiredHoliday => ({
  key,
  form,
  ref: { file: 'h.yaml', list: 'calendar', index: 0, single: true, key, origin },
});

describe('formatPlanMarkdown', () => {
  it('matches the golden file: tables per kind, drift and blockers called out, sources named', () => {
    const eu = hours('EU', [ch('i-1')]);
    const plan = computePlan({
      desired: {
        businessHours: [
          wantProfile('eu', hours('EU', [ch('i-1')], '08:00')),
          wantProfile('sales', always('Sales | 24/7', [ch('i-2', 'livechat')]), 1),
        ],
        holidays: [
          wantHoliday('offsite', holiday('Offsite', '2026-10-05', '2026-10-07')),
          fromCalendar('de-by-2026-neujahr', holiday('Neujahr', '2026-01-01'), 'calendar DE-BY 2026'),
          fromCalendar('de-by-2026-allerheiligen', holiday('Allerheiligen', '2026-11-01'), 'calendar DE-BY 2026'),
        ],
      },
      remote: {
        businessHours: [
          remote('r1', { ...eu, name: 'EU (edited)' }),
          remote('r9', always('Night shift', [ch('i-2', 'livechat')])),
        ],
        holidays: [
          remote('h1', holiday('Allerheiligen', '2026-11-01')),
          remote('h7', holiday('Old party', '2025-07-01')),
        ],
      },
      mappings: { businessHours: [mapped('business_hours', 'eu', 'r1', eu)], holidays: [] },
    });
    plan.warnings = [
      'h.yaml, ics (./offsites.ics), event UID "all-hands@example.com" on 2026-09-10: skipped, a timed event is not a holiday (only all-day events are)',
    ];
    const names = new Map([
      ['i-1', 'Support'],
      ['i-2', 'Sales'],
    ]);
    expect(formatPlanMarkdown(plan, names)).toBe(readFileSync('test/fixtures/plans/plan-markdown.golden', 'utf8'));
  });

  it('says so when nothing changes', () => {
    const plan = computePlan({
      desired: { holidays: [] },
      remote: { holidays: [] },
      mappings: { businessHours: [], holidays: [] },
    });
    expect(formatPlanMarkdown(plan)).toBe(
      '## No changes: the remote business hours and holidays match the configuration\n\n### Holidays\n\nNo changes.\n',
    );
  });
});
