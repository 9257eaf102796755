import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// The shipped examples (config/holidays.yaml, config/business-hours.yaml) are
// valid and apply cleanly to the sandbox that config/sandbox.yaml points at.
let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness();
});
afterAll(async () => {
  await h.close();
});

describe('example push files', () => {
  it('plan, apply, and plan again with nothing left to do', async () => {
    h.writeFiles({
      holidays: readFileSync('config/holidays.yaml', 'utf8'),
      businessHours: readFileSync('config/business-hours.yaml', 'utf8'),
    });
    const plan = await h.plan({ detailedExitcode: true });
    expect([plan.code, plan.error]).toEqual([2, undefined]);
    expect(plan.output).toContain('Plan: 6 to create, 0 to update, 0 to delete, 0 to adopt, 0 to forget.');
    expect((await h.apply({ autoApprove: true })).code).toBe(0);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });
});
