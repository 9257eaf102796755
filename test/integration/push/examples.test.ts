import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// The shipped examples (config/holidays.yaml, config/business-hours.yaml) are
// valid and apply cleanly to the sandbox that config/sandbox.yaml points at,
// with the calendar and the .ics file (config/offsites.ics) they name.
let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness();
});
afterAll(async () => {
  await h.close();
});

describe('example push files', () => {
  it('plan, apply, and plan again with nothing left to do', async () => {
    copyFileSync('config/offsites.ics', join(h.dir, 'offsites.ics'));
    h.writeFiles({
      holidays: readFileSync('config/holidays.yaml', 'utf8'),
      businessHours: readFileSync('config/business-hours.yaml', 'utf8'),
    });
    const plan = await h.plan({ detailedExitcode: true });
    expect([plan.code, plan.error]).toEqual([2, undefined]);
    // 3 profiles, 3 plain holidays, 11 of Bavaria's 12 public holidays of 2027, 2 from the .ics file.
    expect(plan.output).toContain('Plan: 19 to create, 0 to update, 0 to delete, 0 to adopt, 0 to forget.');
    expect(plan.output).toContain(
      '"de-by-2027-1-weihnachtstag"  "Christmas Day" 2027-12-25  (from calendar DE-BY 2027)',
    );
    expect(plan.output).toContain(
      '"Company offsite" 2027-10-04 to 2027-10-06  (from ./offsites.ics UID offsite-2027@example.com)',
    );
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });
});
