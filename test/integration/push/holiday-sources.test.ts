import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// Calendars (date-holidays) and iCal files expanded into holidays, planned and
// applied against the sandbox over HTTP. Counts are those of date-holidays 3's
// data for Germany's public holidays: Bavaria 12 a year in 2026-2028, Berlin 10
// in 2026 and 2027 and 11 in 2028 (17 June 2028, a one-off).

let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.resetStats();
});

type Holiday = { id: string; name: string; start_date: string; end_date: string };
const remoteHolidays = async () => (await h.get('/holidays')) as Holiday[];
const NO_PROFILES = 'business_hours: []\n';
const calendars = (years: number[]) =>
  [
    'calendar:',
    `  - { country: DE, region: BY, years: [${years.join(', ')}], language: de }`,
    `  - { country: DE, region: BE, years: [${years.join(', ')}], rename: { neujahr: "Neujahr (Berlin)" } }`,
    '',
  ].join('\n');
const creates = (output: string) => [...output.matchAll(/^ {2}\+ create {2}"([^"]+)"/gm)].map((m) => m[1]!);

describe('calendar: two regions, then a third year', () => {
  it('plans and applies, plans nothing after, and adds only the new year', async () => {
    h.writeFiles({ holidays: calendars([2026, 2027]), businessHours: NO_PROFILES });
    const first = await h.plan({ detailedExitcode: true });
    expect([first.code, first.error]).toEqual([2, undefined]);
    expect(creates(first.output)).toHaveLength(12 + 12 + 10 + 10);
    expect(first.output).toContain(
      '  + create  "de-by-2026-neujahr"  "Neujahr" 2026-01-01  (from calendar DE-BY 2026)\n',
    );
    expect(first.output).toContain(
      '  + create  "de-by-2026-heilige-drei-konige"  "Heilige Drei Könige" 2026-01-06  (from calendar DE-BY 2026)\n',
    );
    expect(first.output).toContain(
      '  + create  "de-be-2027-neujahr"  "Neujahr (Berlin)" 2027-01-01  (from calendar DE-BE 2027)\n',
    );
    expect(first.output).toContain('Plan: 44 to create, 0 to update, 0 to delete, 0 to adopt, 0 to forget.');
    expect(h.writeRequests()).toBe(0);

    const apply = await h.apply({ autoApprove: true });
    expect([apply.code, apply.error]).toEqual([0, undefined]);
    const remote = await remoteHolidays();
    expect(remote.filter((x) => x.name === 'Heilige Drei Könige').map((x) => [x.start_date, x.end_date])).toEqual(
      expect.arrayContaining([
        ['2026-01-06', '2026-01-06'],
        ['2027-01-06', '2027-01-06'],
      ]),
    );

    h.sandbox.resetStats();
    const again = await h.plan({ detailedExitcode: true });
    expect([again.code, again.output.split('\n')[1]]).toEqual([0, 'Holidays: no changes']);

    h.writeFiles({ holidays: calendars([2026, 2027, 2028]), businessHours: NO_PROFILES });
    const third = await h.plan({ detailedExitcode: true });
    expect(third.code).toBe(2);
    const added = creates(third.output);
    expect(added).toHaveLength(12 + 11);
    expect(added.every((k) => /^de-(by|be)-2028-/.test(k))).toBe(true);
    expect(third.output).toContain('Plan: 23 to create, 0 to update, 0 to delete, 0 to adopt, 0 to forget.');
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });
});

describe('ics: an iCalendar file', () => {
  it('turns all-day events into inclusive ranges, expands a yearly event, skips a timed one', async () => {
    copyFileSync(join('test', 'fixtures', 'holidays', 'offsites.ics'), join(h.dir, 'offsites.ics'));
    h.writeFiles({
      holidays: 'ics: { file: ./offsites.ics, years: [2026, 2027] }\n',
      businessHours: NO_PROFILES,
    });
    const plan = await h.plan({ detailedExitcode: true });
    expect([plan.code, plan.error]).toEqual([2, undefined]);
    const lines = plan.output.split('\n').filter((l) => l.startsWith('  + create'));
    expect(lines).toEqual([
      '  + create  "offsite-autumn-example-com"  "Autumn offsite" 2026-10-05 to 2026-10-07  (from ./offsites.ics UID offsite-autumn@example.com)',
      '  + create  "team-day-example-com"  "Team day" 2026-06-12  (from ./offsites.ics UID team-day@example.com)',
      '  + create  "founders-day-example-com-2026-03-15"  "Founders\' day" 2026-03-15  (from ./offsites.ics UID founders-day@example.com)',
      '  + create  "founders-day-example-com-2027-03-15"  "Founders\' day" 2027-03-15  (from ./offsites.ics UID founders-day@example.com)',
      '  + create  "year-end-example-com"  "Year-end shutdown" 2026-12-28 to 2027-01-01  (from ./offsites.ics UID year-end@example.com)',
    ]);
    expect(plan.output).toContain(
      `Skipped:\n  ${join(h.dir, 'holidays.yaml')}, ics (./offsites.ics), event UID "all-hands@example.com" on 2026-09-10: skipped, a timed event is not a holiday (only all-day events are)\n`,
    );
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    const byName = (name: string) =>
      remoteHolidays().then((all) =>
        all
          .filter((x) => x.name === name)
          .map((x) => `${x.start_date}..${x.end_date}`)
          .sort(),
      );
    expect(await byName('Autumn offsite')).toEqual(['2026-10-05..2026-10-07']);
    expect(await byName('Team day')).toEqual(['2026-06-12..2026-06-12']);
    expect(await byName("Founders' day")).toEqual(['2026-03-15..2026-03-15', '2027-03-15..2027-03-15']);
    expect(await byName('Year-end shutdown')).toEqual(['2026-12-28..2027-01-01']);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });
});
