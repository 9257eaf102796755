import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

// One sandbox organization taken through a lifecycle: first apply, no-op apply,
// channel swaps and moves, drift, adoption, and pruning. Tests run in order.
let h: PushHarness;
beforeAll(async () => {
  h = await startPushHarness();
});
afterAll(async () => {
  await h.close();
});

const HOLIDAYS = `
holidays:
  - key: xmas-eve          # one day
    name: Christmas Eve
    start_date: "2026-12-24"
    end_date: "2026-12-24"
  - key: winter-break      # spans New Year
    name: Winter break
    start_date: "2026-12-28"
    end_date: "2027-01-03"
`;

const schedule = `
      monday:    { start: "9:00", end: "17:00" }
      tuesday:   { start: "09:00", end: "17:00" }
      wednesday: { start: "09:00", end: "17:00" }
      thursday:  { start: "22:00", end: "06:00" }   # overnight
      friday:    { start: "09:00", end: "17:00" }
      saturday:  null
      sunday:    null`;

const profiles = (eu: string, sales: string, extra = '') => `
business_hours:
  - key: eu-support
    name: EU support
    type: business_hours
    schedule:${schedule}
    channels:${eu}
  - key: always-on-sales
    type: calendar_24_7
    channels:${sales}
${extra}`;

const euChannels = `
      - { inbox: Support, channel: livechat }
      - { inbox: Billing, channel: email }`;
const salesChannels = `
      - { inbox: Sales, channel: email }`;

type Profile = {
  id: string;
  name: string;
  type: string;
  weekly_schedule: unknown;
  inbox_channels: Array<{ inbox_id: string; channel: string }>;
};
const profilesNow = async () => (await h.get('/business-hours')) as Profile[];
const byName = async (name: string) => (await profilesNow()).find((p) => p.name === name);

describe('plan and apply against the sandbox', () => {
  it('fresh organization: plan shows creates (exit 2), apply creates, then plan is empty (exit 0)', async () => {
    h.writeFiles({ holidays: HOLIDAYS, businessHours: profiles(euChannels, salesChannels) });
    const plan = await h.plan({ detailedExitcode: true });
    expect(plan.error).toBeUndefined();
    expect(plan.code).toBe(2);
    expect(plan.output).toContain('+ create  "eu-support"  "EU support" business_hours; mon 09:00-17:00');
    expect(plan.output).toContain('thu 22:00-06:00');
    expect(plan.output).toContain('+ create  "winter-break"  "Winter break" 2026-12-28 to 2027-01-03');
    expect(plan.output).toContain('Unmanaged remote objects (left alone; apply --prune-unmanaged deletes them):');
    expect(plan.output).toContain('Plan: 4 to create, 0 to update, 0 to delete, 0 to adopt, 0 to forget.');
    expect(h.writeRequests()).toBe(0);

    const apply = await h.apply({ autoApprove: true });
    expect(apply.error).toBeUndefined();
    expect(apply.code).toBe(0);
    expect(h.writeRequests()).toBe(4);
    const eu = await byName('EU support');
    expect(eu?.weekly_schedule).toContainEqual({ day: 'thursday', start: '22:00', end: '06:00' });
    expect(eu?.weekly_schedule).toContainEqual({ day: 'monday', start: '09:00', end: '17:00' });
    expect(await byName('always-on-sales')).toMatchObject({
      type: 'calendar_24_7',
      inbox_channels: [{ inbox_id: h.inbox.Sales, channel: 'email' }],
    });

    const after = await h.plan({ detailedExitcode: true });
    expect([after.code, after.output.trim().split('\n').at(-1)]).toEqual([
      0,
      'No changes: the remote business hours and holidays match the configuration.',
    ]);
  });

  it('apply again changes nothing: no write request reaches the API', async () => {
    const before = h.writeRequests();
    const again = await h.apply({ autoApprove: true });
    expect(again.code).toBe(0);
    expect(again.output).toContain('Nothing to apply.');
    expect(h.writeRequests()).toBe(before);
  });

  it('swaps channels between two profiles with zero 422s', async () => {
    const before422 = h.count('422');
    h.writeFiles({ businessHours: profiles(salesChannels, euChannels) });
    const apply = await h.apply({ autoApprove: true });
    expect(apply.error).toBeUndefined();
    expect(h.count('422')).toBe(before422);
    expect((await byName('EU support'))?.inbox_channels).toEqual([{ inbox_id: h.inbox.Sales, channel: 'email' }]);
    expect((await byName('always-on-sales'))?.inbox_channels).toHaveLength(2);
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });

  it('moves every channel of one profile to a new one (the old one left out of the config) with zero 422s', async () => {
    const before422 = h.count('422');
    const night = `  - key: night-desk
    type: calendar_24_7
    channels:${euChannels}`;
    const config = profiles(salesChannels, '', night).replace(
      / {2}- key: always-on-sales\n {4}type: calendar_24_7\n {4}channels:\n/,
      '',
    );
    h.writeFiles({ businessHours: config });
    const plan = await h.plan();
    expect(plan.output).toContain('(removed from the config; gives up channels the config claims)');
    const apply = await h.apply({ autoApprove: true });
    expect(apply.error).toBeUndefined();
    expect(h.count('422')).toBe(before422);
    expect((await byName('night-desk'))?.inbox_channels).toHaveLength(2);
    // Without --prune the removed profile stays, holding nothing.
    expect((await byName('always-on-sales'))?.inbox_channels).toEqual([]);
    const after = await h.plan({ detailedExitcode: true });
    expect(after.code).toBe(0);
    expect(after.output).toContain('Removed from the config (left alone; apply --prune deletes them):');
  });

  it('reports drift after edits in the UI, and apply restores the config', async () => {
    const eu = (await byName('EU support'))!;
    await h.send('PATCH', `/business-hours/${eu.id}`, { name: 'Renamed in the UI' });
    const holidays = (await h.get('/holidays')) as Array<{ id: string; name: string }>;
    const eve = holidays.find((x) => x.name === 'Christmas Eve')!;
    expect((await h.send('DELETE', `/holidays/${eve.id}`)).status).toBe(204);

    const plan = await h.plan({ detailedExitcode: true, json: true });
    expect(plan.code).toBe(2);
    const json = JSON.parse(plan.output) as {
      drift: Array<{ key: string; what: string; fields: string[] }>;
      has_changes: boolean;
    };
    expect(json.has_changes).toBe(true);
    expect(json.drift.map((d) => [d.key, d.what, d.fields])).toEqual([
      ['eu-support', 'changed', ['name']],
      ['xmas-eve', 'deleted', []],
    ]);
    const text = await h.plan();
    expect(text.output).toContain('business_hours "eu-support" [');
    expect(text.output).toContain('changed (name) in the UI since the last apply');

    expect((await h.apply({ autoApprove: true })).error).toBeUndefined();
    expect((await byName('EU support'))?.id).toBe(eu.id);
    expect(((await h.get('/holidays')) as Array<{ name: string }>).map((x) => x.name)).toContain('Christmas Eve');
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });

  it('shows the adopt line for a profile whose channels an unmanaged profile holds, and adopts with it', async () => {
    const seeded = (await byName('Support hours'))!;
    const claim = `  - key: support-email
    name: Support email hours
    type: calendar_24_7
    channels:
      - { inbox: Support, channel: email }`;
    const night = `  - key: night-desk
    type: calendar_24_7
    channels:${euChannels}`;
    const base = profiles(salesChannels, '', `${night}\n${claim}`).replace(
      / {2}- key: always-on-sales\n {4}type: calendar_24_7\n {4}channels:\n/,
      '',
    );
    h.writeFiles({ businessHours: base });
    const plan = await h.plan({ detailedExitcode: true });
    expect(plan.code).toBe(1);
    expect(plan.output).toContain(
      `is held by unmanaged profile "Support hours" [${seeded.id}]. To take it over, add this line to that entry:\n    adopt: "${seeded.id}"`,
    );
    const refused = await h.apply({ autoApprove: true });
    expect(refused.code).toBe(1);
    expect(refused.error).toContain('nothing applied: the plan is blocked');

    h.writeFiles({ businessHours: `${base}\n    adopt: "${seeded.id}"\n` });
    const adopted = await h.apply({ autoApprove: true });
    expect(adopted.error).toBeUndefined();
    expect(await byName('Support email hours')).toMatchObject({ id: seeded.id, type: 'calendar_24_7' });
    expect((await h.plan({ detailedExitcode: true })).code).toBe(0);
  });

  it('leaves unmanaged objects alone without --prune-unmanaged and deletes them with it', async () => {
    const unmanaged = ['Always on'];
    for (const name of unmanaged) expect(await byName(name)).toBeDefined();
    const seededHolidays = ((await h.get('/holidays')) as Array<{ name: string }>).map((x) => x.name);
    expect(seededHolidays).toEqual(expect.arrayContaining(['Company offsite', 'Founders day', 'Spring bank holiday']));

    // --prune deletes only what the config managed and no longer lists; the unmanaged stay.
    const planPrune = await h.plan({ prune: true, detailedExitcode: true });
    expect(planPrune.code).toBe(2);
    expect(planPrune.output).toContain('(removed from the config; --prune)');
    expect(planPrune.output).not.toContain('(unmanaged; --prune-unmanaged)');
    expect(planPrune.output).toContain('Unmanaged remote objects (left alone; apply --prune-unmanaged deletes them):');
    const planAll = await h.plan({ pruneUnmanaged: true, detailedExitcode: true });
    expect(planAll.output).toContain('(unmanaged; --prune-unmanaged)');
    expect(planAll.output).toContain('(removed from the config; --prune)');

    const pruned = await h.apply({ autoApprove: true, pruneUnmanaged: true });
    expect(pruned.error).toBeUndefined();
    expect((await profilesNow()).map((p) => p.name).sort()).toEqual([
      'EU support',
      'Support email hours',
      'night-desk',
    ]);
    expect(((await h.get('/holidays')) as Array<{ name: string }>).map((x) => x.name).sort()).toEqual([
      'Christmas Eve',
      'Winter break',
    ]);
    expect((await h.plan({ pruneUnmanaged: true, detailedExitcode: true })).code).toBe(0);
  });
});
