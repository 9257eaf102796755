import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planContextFromEnv } from '../../../src/cli/commands/plan.js';
import type { DesiredHoliday } from '../../../src/push/plan/build-desired-state.js';
import { computePlan } from '../../../src/push/plan/plan.js';
import {
  formatPlanMarkdown,
  GITHUB_COMMENT_LIMIT,
  WORKFLOW_LINES_ROOM,
} from '../../../src/push/report/format-plan-markdown.js';
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

  it('escapes HTML and @ in names, keeps keys as code, and shows every updated field before and after', () => {
    const plan = computePlan({
      desired: {
        holidays: [
          wantHoliday('party', holiday('@team <img src=x onerror=alert(1)> & co', '2026-12-20')),
          wantHoliday('tick`key', holiday('Name with a ` backtick', '2026-12-21')),
        ],
      },
      remote: { holidays: [] },
      mappings: { businessHours: [], holidays: [] },
    });
    const text = formatPlanMarkdown(plan);
    expect(text).toContain('"&#64;team &lt;img src=x onerror=alert(1)&gt; &amp; co" 2026-12-20');
    expect(text).not.toMatch(/<img|@team/);
    expect(text).toContain("`tick'key`");
    expect(text).toContain('"Name with a &#96; backtick"');
  });

  it('names the commit and the run it was planned at, from the GitHub Actions variables', () => {
    const context = planContextFromEnv({
      GITHUB_SHA: '0123456789abcdef0123',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/helpdesk-config',
      GITHUB_RUN_ID: '42',
    });
    expect(context).toEqual({
      commit: '0123456789ab',
      runUrl: 'https://github.com/acme/helpdesk-config/actions/runs/42',
    });
    expect(planContextFromEnv({})).toEqual({});
    const plan = computePlan({
      desired: { holidays: [wantHoliday('x', holiday('X', '2026-12-20'))] },
      remote: { holidays: [] },
      mappings: { businessHours: [], holidays: [] },
    });
    expect(formatPlanMarkdown(plan, new Map(), context)).toContain(
      'Planned at commit `0123456789ab` in [this run](https://github.com/acme/helpdesk-config/actions/runs/42).',
    );
  });

  it("a plan over GitHub's comment limit becomes its headline, counts and a link to the whole plan", () => {
    const holidays = Array.from({ length: 1200 }, (_, i) =>
      wantHoliday(`k-${i}`, holiday(`Holiday number ${i} with a long name to fill the table`, '2027-01-01')),
    );
    const plan = computePlan({
      desired: { holidays },
      remote: { holidays: [] },
      mappings: { businessHours: [], holidays: [] },
    });
    const text = formatPlanMarkdown(plan, new Map(), { runUrl: 'https://github.com/a/b/actions/runs/1' });
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text).toMatch(/^## Plan: 1200 to create/);
    expect(text).toMatch(
      /The whole plan is \d+ characters, more than fits in a comment \(GitHub's limit is 65536\): 1200 to create/,
    );
    expect(text).toContain('Read it in [this run](https://github.com/a/b/actions/runs/1)');
    expect(text).not.toContain('Holiday number');
  });

  it('cuts a plan that fits the limit only without room for the lines a workflow adds', () => {
    const planOf = (n: number) =>
      computePlan({
        desired: {
          holidays: Array.from({ length: n }, (_, i) => wantHoliday(`k-${i}`, holiday(`Day ${i}`, '2027-01-01'))),
        },
        remote: { holidays: [] },
        mappings: { businessHours: [], holidays: [] },
      });
    // The longest plan that still prints whole, then one more holiday.
    let n = 100;
    while (formatPlanMarkdown(planOf(n + 1)).includes('| create |')) n += 50;
    while (!formatPlanMarkdown(planOf(n)).includes('| create |')) n -= 1;
    const whole = formatPlanMarkdown(planOf(n));
    expect(whole.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT - WORKFLOW_LINES_ROOM);
    const cut = formatPlanMarkdown(planOf(n + 1));
    expect(cut).toContain('more than fits in a comment');
    // Cut although it would have fitted GitHub's own limit: the room is kept.
    expect(Number(/The whole plan is (\d+) characters/.exec(cut)?.[1])).toBeLessThan(GITHUB_COMMENT_LIMIT);
  });
});
