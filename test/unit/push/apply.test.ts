import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../src/push/apply/apply.js';
import { PushBlockedError } from '../../../src/push/errors.js';
import { createMemoryResourceStore, type ResourceStore } from '../../../src/push/mappings/resource-store.js';
import type { DesiredState } from '../../../src/push/plan/build-desired-state.js';
import { computePlan } from '../../../src/push/plan/plan.js';
import { planHasChanges } from '../../../src/push/plan/plan-types.js';
import { readRemote } from '../../../src/push/plan/read-remote.js';
import { FakeClock } from '../api/fake-clock.js';
import { FakePushApi } from './fake-push-api.js';
import { always, ch, holiday, hours, wantHoliday, wantProfile } from './plan-fixtures.js';

const clock = new FakeClock(Date.parse('2026-11-20T10:00:00Z'));

async function plan(api: FakePushApi, store: ResourceStore, desired: DesiredState, prune = false) {
  const remote = await readRemote(api, {
    businessHours: Boolean(desired.businessHours),
    holidays: Boolean(desired.holidays),
  });
  return computePlan({
    desired,
    remote,
    mappings: { businessHours: store.list('business_hours'), holidays: store.list('holiday') },
    prune,
  });
}

async function apply(api: FakePushApi, store: ResourceStore, desired: DesiredState, prune = false) {
  return applyPlan(await plan(api, store, desired, prune), { api, store, clock });
}

const writes = (api: FakePushApi) => api.writes().map((c) => `${c.method} ${c.path}`);

describe('applyPlan', () => {
  it('stops before the next step once its signal aborts, and reports what was not applied', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    const desired: DesiredState = {
      holidays: [
        wantHoliday('a', holiday('A', '2026-12-24', '2026-12-24')),
        wantHoliday('b', holiday('B', '2026-12-31', '2027-01-01'), 1),
      ],
    };
    const controller = new AbortController();
    const report = await applyPlan(await plan(api, store, desired), {
      api,
      store,
      clock,
      signal: controller.signal,
      onStep: () => controller.abort(),
    });
    expect(writes(api)).toEqual(['POST /holidays']);
    expect(report.applied).toHaveLength(1);
    expect(report.failed?.message).toMatch(/shutting down/);
    expect(report.pending).toHaveLength(0);
    expect(store.list('holiday')).toHaveLength(1);
  });

  it('creates, then a second plan is empty and a second apply writes nothing', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    const desired: DesiredState = {
      businessHours: [
        wantProfile('eu', hours('EU', [ch('inbox-a')])),
        wantProfile('all', always('All', [ch('inbox-a', 'livechat')]), 1),
      ],
      holidays: [wantHoliday('ny', holiday('NY', '2026-12-31', '2027-01-01'))],
    };
    const report = await apply(api, store, desired);
    expect(report.failed).toBeUndefined();
    expect(writes(api)).toEqual(['POST /business-hours', 'POST /business-hours', 'POST /holidays']);
    expect(store.list('business_hours').map((r) => r.key)).toEqual(['all', 'eu']);
    api.calls.length = 0;
    const again = await plan(api, store, desired);
    expect(planHasChanges(again)).toBe(false);
    await applyPlan(again, { api, store, clock });
    expect(api.writes()).toEqual([]);
  });

  it('swaps channels between two profiles: releases first, claims after, no 422', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    await apply(api, store, {
      businessHours: [wantProfile('x', always('X', [ch('inbox-a')])), wantProfile('y', hours('Y', [ch('inbox-b')]), 1)],
    });
    api.calls.length = 0;
    const swapped: DesiredState = {
      businessHours: [wantProfile('x', always('X', [ch('inbox-b')])), wantProfile('y', hours('Y', [ch('inbox-a')]), 1)],
    };
    const report = await apply(api, store, swapped);
    expect(report.failed).toBeUndefined();
    const [x, y] = [store.get('business_hours', 'x')!.remote_id, store.get('business_hours', 'y')!.remote_id];
    expect(api.writes().map((c) => [c.method, c.path, (c.body as { inbox_channels: unknown }).inbox_channels])).toEqual(
      [
        ['PATCH', `/business-hours/${x}`, []],
        ['PATCH', `/business-hours/${y}`, []],
        ['PATCH', `/business-hours/${x}`, [ch('inbox-b')]],
        ['PATCH', `/business-hours/${y}`, [ch('inbox-a')]],
      ],
    );
    expect(planHasChanges(await plan(api, store, swapped))).toBe(false);
  });

  it('moves every channel of a removed profile to a new one: release without prune, delete first with it', async () => {
    for (const prune of [false, true]) {
      const api = new FakePushApi();
      const store = createMemoryResourceStore();
      await apply(api, store, { businessHours: [wantProfile('old', always('Old', [ch('inbox-a'), ch('inbox-b')]))] });
      const oldId = store.get('business_hours', 'old')!.remote_id;
      api.calls.length = 0;
      const moved: DesiredState = { businessHours: [wantProfile('new', hours('New', [ch('inbox-a'), ch('inbox-b')]))] };
      const report = await apply(api, store, moved, prune);
      expect(report.failed).toBeUndefined();
      expect(writes(api)).toEqual(
        prune
          ? [`DELETE /business-hours/${oldId}`, 'POST /business-hours']
          : [`PATCH /business-hours/${oldId}`, 'POST /business-hours'],
      );
      const after = await plan(api, store, moved, prune);
      expect(planHasChanges(after)).toBe(false);
      expect(after.removed.map((r) => r.key)).toEqual(prune ? [] : ['old']);
    }
  });

  it('stops at a failed write, reports applied and pending steps, and the next apply converges', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    const desired: DesiredState = {
      businessHours: [
        wantProfile('a', always('A', [ch('inbox-a')])),
        wantProfile('b', always('B', [ch('inbox-b')]), 1),
      ],
      holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))],
    };
    let n = 0;
    const original = api.createBusinessHours;
    api.createBusinessHours = async (body) => {
      n += 1;
      if (n === 2) throw Object.assign(new Error('socket closed by a test'), {});
      return original(body);
    };
    const report = await apply(api, store, desired);
    expect(report.applied.map((s) => s.label)).toEqual(['create business_hours "a"']);
    expect(report.failed?.step.label).toBe('create business_hours "b"');
    expect(report.failed?.message).toBe('bh.yaml, business_hours[1] (key "b"): socket closed by a test');
    expect(report.pending.map((s) => s.label)).toEqual(['create holiday "ny"']);
    expect(store.list('business_hours').map((r) => r.key)).toEqual(['a']);
    api.createBusinessHours = original;
    api.calls.length = 0;
    expect((await apply(api, store, desired)).failed).toBeUndefined();
    expect(writes(api)).toEqual(['POST /business-hours', 'POST /holidays']);
    expect(planHasChanges(await plan(api, store, desired))).toBe(false);
  });

  it('after a timeout on a create that took effect, re-reads and records it instead of creating twice', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    api.failNext('POST', '/business-hours', { timeout: 'after-apply' });
    api.failNext('POST', '/holidays', { timeout: 'before-apply' });
    const desired: DesiredState = {
      businessHours: [wantProfile('a', always('A', [ch('inbox-a')]))],
      holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))],
    };
    const report = await apply(api, store, desired);
    expect(report.failed).toBeUndefined();
    // Profile: POST (timed out, but applied) → GET list finds it. Holiday: POST (not applied) → GET list → POST once more.
    expect(api.calls.map((c) => `${c.method} ${c.path}`).slice(2)).toEqual([
      'POST /business-hours',
      'GET /business-hours',
      'POST /holidays',
      'GET /holidays',
      'POST /holidays',
    ]);
    expect(api.profiles.size).toBe(1);
    expect(api.holidays.size).toBe(1);
    expect(store.get('business_hours', 'a')?.remote_id).toBe([...api.profiles.keys()][0]);
  });

  it('after a timeout on an update, confirms it with a GET', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    await apply(api, store, { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] });
    const id = store.get('holiday', 'ny')!.remote_id;
    api.failNext('PATCH', '/holidays', { timeout: 'after-apply' });
    api.calls.length = 0;
    const report = await apply(api, store, { holidays: [wantHoliday('ny', holiday('New Year', '2027-01-01'))] });
    expect(report.failed).toBeUndefined();
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /holidays',
      `PATCH /holidays/${id}`,
      `GET /holidays/${id}`,
    ]);
  });

  it('moves a holiday past its old end in one PATCH carrying both dates', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    await apply(api, store, { holidays: [wantHoliday('h', holiday('H', '2027-03-10', '2027-03-12'))] });
    api.calls.length = 0;
    const report = await apply(api, store, { holidays: [wantHoliday('h', holiday('H', '2027-03-20', '2027-03-22'))] });
    expect(report.failed).toBeUndefined();
    expect(api.writes().map((c) => c.body)).toEqual([{ name: 'H', start_date: '2027-03-20', end_date: '2027-03-22' }]);
  });

  it('a key renamed through its aliases moves the mapping: one PATCH of the same holiday, no delete and create', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    await apply(api, store, {
      holidays: [wantHoliday('de-2027-new-year-s-day', holiday("New Year's Day", '2027-01-01'))],
    });
    const id = store.get('holiday', 'de-2027-new-year-s-day')!.remote_id;
    api.calls.length = 0;
    const renamed: DesiredState = {
      holidays: [
        { ...wantHoliday('de-2027-neujahr', holiday('Neujahr', '2027-01-01')), aliases: ['de-2027-new-year-s-day'] },
      ],
    };
    const moved = await plan(api, store, renamed);
    expect(moved.actions.map((a) => a.op)).toEqual(['move', 'update']);
    expect(moved.removed).toEqual([]);
    const report = await applyPlan(moved, { api, store, clock });
    expect(report.failed).toBeUndefined();
    expect(writes(api)).toEqual([`PATCH /holidays/${id}`]);
    expect(store.list('holiday').map((r) => [r.key, r.remote_id])).toEqual([['de-2027-neujahr', id]]);
    expect(planHasChanges(await plan(api, store, renamed))).toBe(false);
  });

  it('a move alone (same form) is a change to apply, and only touches state', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    await apply(api, store, { holidays: [wantHoliday('old', holiday('NY', '2027-01-01'))] });
    api.calls.length = 0;
    const renamed: DesiredState = {
      holidays: [{ ...wantHoliday('new', holiday('NY', '2027-01-01')), aliases: ['old'] }],
    };
    const moved = await plan(api, store, renamed);
    expect(planHasChanges(moved)).toBe(true);
    await applyPlan(moved, { api, store, clock });
    expect(api.writes()).toEqual([]);
    expect(store.list('holiday').map((r) => r.key)).toEqual(['new']);
  });

  it('explains a 403 in terms of roles and maps 422 field errors to config fields', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    api.failNext('POST', '/holidays', { status: 403, body: { message: 'This action is unauthorized.' } });
    const denied = await apply(api, store, { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] });
    expect(denied.failed?.message).toBe(
      'h.yaml, holidays[0] (key "ny"): the API refused the write (403: This action is unauthorized.): writing business hours and holidays needs an administrator or the account owner, with a personal access token',
    );
    api.failNext('POST', '/business-hours', {
      status: 422,
      body: {
        message: 'The given data was invalid.',
        errors: { 'weekly_schedule.4.start': ['Bad time.'], 'inbox_channels.0.inbox_id': ['Unknown inbox.'] },
      },
    });
    const invalid = await apply(api, store, { businessHours: [wantProfile('eu', hours('EU', [ch('inbox-a')]))] });
    expect(invalid.failed?.message).toBe(
      'bh.yaml, business_hours[0] (key "eu"): the API refused the values (422: The given data was invalid.): schedule.friday.start: Bad time.; channels (inbox-a email).inbox_id: Unknown inbox.',
    );
  });

  it('names the holder when the API reports a channel conflict', async () => {
    const api = new FakePushApi();
    const store = createMemoryResourceStore();
    const p = await plan(api, store, { businessHours: [wantProfile('eu', always('EU', [ch('inbox-a')]))] });
    api.seedProfile({ name: 'Made meanwhile', type: 'calendar_24_7', inbox_channels: [ch('inbox-a')], id: 'bh-x' });
    const report = await applyPlan(p, { api, store, clock, inboxNames: new Map([['inbox-a', 'Support']]) });
    expect(report.failed?.message).toBe(
      'bh.yaml, business_hours[0] (key "eu"): inbox "Support" (inbox-a) email is held by another business-hours profile (bh-x), changed since the plan was made; run apply again',
    );
    expect(store.list('business_hours')).toEqual([]);
  });

  it('refuses a blocked plan before any write', async () => {
    const api = new FakePushApi();
    api.seedProfile({ name: 'Support', type: 'calendar_24_7', inbox_channels: [ch('inbox-a')] });
    const store = createMemoryResourceStore();
    await expect(
      apply(api, store, { businessHours: [wantProfile('eu', always('EU', [ch('inbox-a')]))] }),
    ).rejects.toBeInstanceOf(PushBlockedError);
    expect(api.writes()).toEqual([]);
  });
});
