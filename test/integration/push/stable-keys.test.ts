import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// Renamed keys against the sandbox: a `moved:` line, and calendar keys of earlier
// releases (English names leaking into later years), both carried over in state
// so the same remote objects are updated, never deleted and re-created.

let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness();
});
afterAll(async () => {
  await h.close();
});

const lines = (output: string, sign: string) =>
  [...output.matchAll(new RegExp(`^ {2}\\${sign} \\w+ +"([^"]+)"`, 'gm'))].map((m) => m[1]!);
const holiday = (key: string, name: string, date: string) =>
  `  - { key: ${key}, name: "${name}", start_date: "${date}", end_date: "${date}" }`;
const profile = (key: string, name: string) =>
  `business_hours:\n  - { key: ${key}, name: ${name}, type: calendar_24_7, channels: [{ inbox: Sales, channel: email }] }\n`;
const ids = async (path: string) => ((await h.get(path)) as Array<{ id: string }>).map((x) => x.id).sort();

describe('renamed keys keep their remote objects', () => {
  it('moved: renames a profile and a holiday key; apply moves state and updates in place', async () => {
    h.writeFiles({
      holidays: `holidays:\n${holiday('eve', 'Eve', '2026-12-24')}\n`,
      businessHours: profile('sales', 'Sales'),
    });
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    const before = { profiles: await ids('/business-hours'), holidays: await ids('/holidays') };
    h.writeFiles({
      holidays: `holidays:\n${holiday('christmas-eve', 'Christmas Eve', '2026-12-24')}\nmoved: { eve: christmas-eve }\n`,
      businessHours: `${profile('sales-24-7', 'Sales')}moved:\n  sales: sales-24-7\n`,
    });
    const plan = await h.plan({ detailedExitcode: true });
    expect([plan.code, plan.error]).toEqual([2, undefined]);
    expect(lines(plan.output, '>').sort()).toEqual(['christmas-eve', 'sales-24-7']);
    expect(lines(plan.output, '~')).toEqual(['christmas-eve']);
    expect([lines(plan.output, '+'), lines(plan.output, '-')]).toEqual([[], []]);
    expect(plan.output).toContain('  > move    "sales-24-7"');
    expect(plan.output).toContain('(key renamed from "sales"; state only)');
    expect(plan.output).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 to adopt, 0 to forget, 2 to move.');
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    expect({ profiles: await ids('/business-hours'), holidays: await ids('/holidays') }).toEqual(before);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });

  it('a calendar key of an earlier release (English name in a later year) moves to the stable key', async () => {
    // What an earlier release left in state: 2027's New Year under its English key.
    h.writeFiles({
      holidays: `holidays:\n${holiday('de-by-2027-new-year-s-day', "New Year's Day", '2027-01-01')}\n`,
      businessHours: 'business_hours: []\n',
    });
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    const before = await ids('/holidays');
    h.writeFiles({
      holidays: 'calendar: { country: DE, region: BY, years: [2026, 2027], language: en }\n',
      businessHours: 'business_hours: []\n',
    });
    const plan = await h.plan({ detailedExitcode: true });
    expect([plan.code, plan.error]).toEqual([2, undefined]);
    expect(lines(plan.output, '>')).toEqual(['de-by-2027-neujahr']);
    expect(lines(plan.output, '+')).not.toContain('de-by-2027-neujahr');
    expect(lines(plan.output, '+')).toContain('de-by-2027-heilige-drei-konige');
    // Named once, as where the move comes from: not listed as removed from the config.
    expect(plan.output.match(/de-by-2027-new-year-s-day/g)).toEqual(['de-by-2027-new-year-s-day']);
    expect(plan.output).toContain('(key renamed from "de-by-2027-new-year-s-day"; state only)');
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    expect(await ids('/holidays')).toEqual(expect.arrayContaining(before));
    const again = await h.plan({ detailedExitcode: true });
    expect([again.code, again.error]).toEqual([0, undefined]);
  });
});
