import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

let h: PushHarness;
let files: { holidays: string; businessHours: string };
beforeAll(async () => {
  h = await startPushHarness();
  files = { holidays: h.config().push.holidays!, businessHours: h.config().push.business_hours! };
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.resetStats();
});

const GOOD_HOLIDAYS = 'holidays:\n  - { key: ny, name: New Year, start_date: "2027-01-01", end_date: "2027-01-01" }\n';
const week = (monday = '{ start: "09:00", end: "17:00" }') =>
  `{ monday: ${monday}, tuesday: null, wednesday: null, thursday: null, friday: null, saturday: null, sunday: null }`;
const profile = (fields: string) => `business_hours:\n  - { key: eu, ${fields} }\n`;
const GOOD_PROFILES = profile(
  `type: business_hours, schedule: ${week()}, channels: [{ inbox: Support, channel: livechat }]`,
);

describe('invalid push files: every problem named, exit 64, no request made', () => {
  it.each<[string, { holidays?: string; businessHours?: string }, string[]]>([
    [
      'end before start',
      { holidays: 'holidays:\n  - { key: x, name: X, start_date: "2027-01-05", end_date: "2027-01-04" }\n' },
      ['HOL, holidays[0] (key "x"), end_date: must be on or after start_date (2027-01-05)'],
    ],
    [
      'not a real date',
      { holidays: 'holidays:\n  - { key: x, name: X, start_date: "2027-02-30", end_date: "2027-03-01" }\n' },
      ['HOL, holidays[0] (key "x"), start_date: not a real calendar date'],
    ],
    [
      'an unquoted number as a date',
      { holidays: 'holidays:\n  - { key: x, name: X, start_date: 20270101, end_date: "2027-03-01" }\n' },
      ['HOL, holidays[0] (key "x"), start_date: expected a date "YYYY-MM-DD" (quote it)'],
    ],
    [
      'a missing holiday name',
      { holidays: 'holidays:\n  - { key: x, start_date: "2027-01-01", end_date: "2027-01-01" }\n' },
      ['HOL, holidays[0] (key "x"), name: required'],
    ],
    [
      'a duplicate holiday key',
      { holidays: `${GOOD_HOLIDAYS}  - { key: ny, name: Again, start_date: "2027-01-02", end_date: "2027-01-02" }\n` },
      ['HOL, holidays[1] (key "ny"), key: duplicate key, already used by holidays[0] (key "ny")'],
    ],
    [
      'an unknown type',
      { businessHours: profile('type: weekdays, channels: []') },
      ['BH, business_hours[0] (key "eu"), type: expected business_hours or calendar_24_7'],
    ],
    [
      'six weekdays',
      {
        businessHours: profile(
          `type: business_hours, schedule: { monday: null, tuesday: null, wednesday: null, thursday: null, friday: null, saturday: null }`,
        ),
      },
      ['BH, business_hours[0] (key "eu"), schedule.sunday: missing: give {start, end}, or null for a closed day'],
    ],
    [
      'a time of 24:00',
      { businessHours: profile(`type: business_hours, schedule: ${week('{ start: "09:00", end: "24:00" }')}`) },
      ['BH, business_hours[0] (key "eu"), schedule.monday.end: expected a 24-hour time HH:MM (00:00 to 23:59)'],
    ],
    [
      'a 12-hour time',
      { businessHours: profile(`type: business_hours, schedule: ${week('{ start: "9am", end: "5pm" }')}`) },
      [
        'BH, business_hours[0] (key "eu"), schedule.monday.start: expected a 24-hour time HH:MM (00:00 to 23:59)',
        'BH, business_hours[0] (key "eu"), schedule.monday.end: expected a 24-hour time HH:MM (00:00 to 23:59)',
      ],
    ],
    [
      'start equal to end',
      { businessHours: profile(`type: business_hours, schedule: ${week('{ start: "09:00", end: "09:00" }')}`) },
      [
        'BH, business_hours[0] (key "eu"), schedule.monday.end: equals start; an end earlier than the start is an overnight shift, a closed day is null',
      ],
    ],
    [
      'a schedule for calendar_24_7',
      { businessHours: profile(`type: calendar_24_7, schedule: ${week()}`) },
      ['BH, business_hours[0] (key "eu"), schedule: must be omitted for type calendar_24_7 (open around the clock)'],
    ],
    [
      'an sms channel',
      { businessHours: profile('type: calendar_24_7, channels: [{ inbox: Support, channel: sms }]') },
      ['BH, business_hours[0] (key "eu"), channels[0].channel: only email and livechat channels can be covered'],
    ],
    [
      'one channel in two profiles',
      {
        businessHours: `${GOOD_PROFILES}  - { key: us, type: calendar_24_7, channels: [{ inbox: Support, channel: livechat }] }\n`,
      },
      [
        'BH, business_hours[1] (key "us"), channels[0]: Support livechat is already covered by business_hours[0] (key "eu"); a channel belongs to at most one profile',
      ],
    ],
    [
      'not YAML',
      { holidays: 'holidays: [\n' },
      [
        'HOL: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:',
      ],
    ],
    [
      'no top-level list',
      { holidays: '- { key: x }\n' },
      ['HOL: expected a mapping with a `holidays:` list (and/or `calendar:`, `ics:`)'],
    ],
    [
      'problems in both files at once',
      {
        holidays: 'holidays:\n  - { key: x, name: X, start_date: "2027-1-5", end_date: "2027-01-04", status: past }\n',
        businessHours: profile('type: business_hours'),
      },
      [
        'HOL, holidays[0] (key "x"), start_date: expected a date written YYYY-MM-DD',
        'HOL, holidays[0] (key "x"): unknown key(s): status',
        'BH, business_hours[0] (key "eu"), schedule: required for type business_hours: all seven weekdays, null = closed',
      ],
    ],
  ])('%s', async (_label, content, lines) => {
    h.writeFiles({
      holidays: content.holidays ?? GOOD_HOLIDAYS,
      businessHours: content.businessHours ?? GOOD_PROFILES,
    });
    const expected = [
      `error [CONFIG_INVALID]: invalid configuration in ${files.holidays} and ${files.businessHours}:`,
      ...lines.map((l) => `  - ${l.replace(/^HOL/, files.holidays).replace(/^BH/, files.businessHours)}`),
    ].join('\n');
    for (const run of [() => h.plan({ detailedExitcode: true }), () => h.apply({ autoApprove: true })]) {
      const result = await run();
      expect(result.code).toBe(64);
      expect(result.error).toBe(expected);
      expect(result.output).toBe('');
    }
    expect(h.sandbox.stats().total).toBe(0);
  });

  it('an unknown or ambiguous inbox is found with one read, before any write', async () => {
    h.writeFiles({
      holidays: GOOD_HOLIDAYS,
      businessHours: profile('type: calendar_24_7, channels: [{ inbox: Nowhere, channel: email }]'),
    });
    const result = await h.apply({ autoApprove: true });
    expect(result.code).toBe(64);
    expect(result.error).toContain(
      `${files.businessHours}, business_hours[0] (key "eu"), channels[0].inbox: no inbox with this name or id: "Nowhere" (inboxes: "Support", "Sales", "Billing", "Partnerships")`,
    );
    expect(Object.keys(h.sandbox.stats().by_route)).toEqual(['GET /v1/inboxes']);
  });

  it('an inbox named by name and by id in two profiles is one channel twice', async () => {
    const twice = `${GOOD_PROFILES}  - { key: us, type: calendar_24_7, channels: [{ inbox: "${h.inbox.Support}", channel: livechat }] }\n`;
    h.writeFiles({ holidays: GOOD_HOLIDAYS, businessHours: twice });
    const result = await h.plan();
    expect(result.code).toBe(64);
    expect(result.error).toContain(
      `business_hours[1] (key "us"), channels[0]: inbox ${h.inbox.Support} livechat is already covered by business_hours[0] (key "eu") (named differently there)`,
    );
  });

  it('adopt: must name a live profile', async () => {
    h.writeFiles({
      holidays: GOOD_HOLIDAYS,
      businessHours: profile('type: calendar_24_7, adopt: "00000000-0000-4000-8000-000000000000"'),
    });
    const result = await h.plan();
    expect(result.code).toBe(64);
    expect(result.error).toContain('adopt: no business-hours profile with id 00000000-0000-4000-8000-000000000000');
  });
});

describe('tokens that may not write', () => {
  it('sandbox-agent: plan reads, apply stops at the first write with the 403 explained', async () => {
    h.writeFiles({ holidays: GOOD_HOLIDAYS, businessHours: GOOD_PROFILES });
    const plan = await h.plan({ token: 'sandbox-agent', detailedExitcode: true });
    expect(plan.code).toBe(2);
    const apply = await h.apply({ token: 'sandbox-agent', autoApprove: true });
    expect(apply.code).toBe(1);
    expect(apply.error).toContain(
      'the API refused the write (403: This action is unauthorized.): writing business hours and holidays needs an administrator or the account owner, with a personal access token',
    );
    expect(apply.error).toContain(
      'Applied (0):\n  (none)\nNot applied (2):\n  create business_hours "eu"\n  create holiday "ny"',
    );
    expect(h.count('403')).toBe(1);
  });

  it('sandbox-partner: even reading is refused (PAT only), said plainly', async () => {
    const plan = await h.plan({ token: 'sandbox-partner' });
    expect(plan.code).toBe(1);
    expect(plan.error).toBe(
      'error [PUSH_READ_FAILED]: cannot read the business-hours profiles (403: This action requires a personal access token.) (business hours and holidays need a personal access token)',
    );
  });
});
