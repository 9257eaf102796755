import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// Injected 500s and connection resets: reads are retried by the client, writes
// never blindly; apply re-reads after an unknown outcome, and re-running apply
// converges without duplicates.
let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness({ faults: '500:0.3,reset:0.2' });
});
afterAll(async () => {
  await h.close();
});

const HOLIDAYS = Array.from(
  { length: 6 },
  (_, i) => `  - { key: h${i}, name: Day ${i}, start_date: "2027-0${i + 1}-01", end_date: "2027-0${i + 1}-02" }`,
).join('\n');
const PROFILES = ['Support', 'Sales', 'Billing', 'Partnerships']
  .map(
    (inbox, i) =>
      `  - { key: p${i}, type: calendar_24_7, channels: [{ inbox: ${inbox}, channel: ${i === 0 ? 'livechat' : 'email'} }] }`,
  )
  .join('\n');

describe('apply under injected faults', () => {
  it('converges over repeated applies, with no duplicate object and an empty plan at the end', async () => {
    h.writeFiles({ holidays: `holidays:\n${HOLIDAYS}\n`, businessHours: `business_hours:\n${PROFILES}\n` });
    const outcomes: number[] = [];
    for (let attempt = 0; attempt < 15; attempt++) {
      const result = await h.apply({ autoApprove: true });
      outcomes.push(result.code);
      if (result.code === 0) break;
      // A failed apply says what was and was not applied.
      if (result.error?.startsWith('PushApplyError'))
        expect(result.error).toMatch(/Applied \(\d+\):[\s\S]*Not applied \(\d+\):/);
    }
    expect(outcomes.at(-1)).toBe(0);
    const faults = h.count('500') + h.count('reset');
    expect(faults).toBeGreaterThan(0);
    const holidays = (await h.get('/holidays')) as Array<{ name: string }>;
    const names = holidays.map((x) => x.name).filter((n) => n.startsWith('Day '));
    expect(names.sort()).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5']);
    const profiles = (await h.get('/business-hours')) as Array<{ name: string }>;
    expect(
      profiles
        .map((p) => p.name)
        .filter((n) => /^p\d$/.test(n))
        .sort(),
    ).toEqual(['p0', 'p1', 'p2', 'p3']);
    let plan = await h.plan({ detailedExitcode: true });
    for (let i = 0; i < 5 && plan.code === 1; i++) plan = await h.plan({ detailedExitcode: true });
    expect(plan.code).toBe(0);
  });
});
