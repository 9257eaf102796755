import { describe, expect, it } from 'vitest';
import { checkAdoptTargets } from '../../../src/push/plan/check-adopt-targets.js';
import { computePlan, type PlanInput } from '../../../src/push/plan/plan.js';
import { type Plan, planHasChanges } from '../../../src/push/plan/plan-types.js';
import { always, ch, holiday, hours, mapped, remote, wantHoliday, wantProfile } from './plan-fixtures.js';

/** The plan as short lines, so each case states its whole expected outcome. */
function summary(plan: Plan): string[] {
  const lines = plan.actions.map((a) => {
    const parts: string[] = [a.op, a.kind, ('key' in a && a.key) || '-'];
    if ('remote_id' in a) parts.push(a.remote_id);
    if (a.op === 'update') parts.push(`[${a.fields.join(',')}]`);
    if ((a.op === 'update' || a.op === 'create') && a.drift) parts.push(`drift:${a.drift}`);
    if (a.op === 'update' && a.adopted) parts.push('adopted');
    if (a.op === 'update' && a.release) parts.push('release');
    if (a.op === 'delete') parts.push(a.reason);
    return parts.join(' ');
  });
  lines.push(...plan.unmanaged.map((u) => `unmanaged ${u.kind} ${u.remote_id}`));
  lines.push(...plan.removed.map((r) => `removed ${r.kind} ${r.key} ${r.remote_id}`));
  lines.push(...plan.drift.map((d) => `drift ${d.kind} ${d.key} ${d.what}`));
  lines.push(
    ...plan.blockers.map((b) => `blocked ${b.key} ${b.channel.inbox_id}/${b.channel.channel} by ${b.holder_id}`),
  );
  lines.push(...plan.adopt_hints.map((h) => `hint ${h.key} ${h.line}`));
  return lines;
}

const input = (over: Partial<PlanInput>): PlanInput => ({
  desired: { businessHours: [], holidays: [] },
  remote: { businessHours: [], holidays: [] },
  mappings: { businessHours: [], holidays: [] },
  ...over,
});

const eu = hours('EU', [ch('a')]);

describe('computePlan', () => {
  it.each<[string, Partial<PlanInput>, string[]]>([
    ['nothing anywhere', {}, []],
    [
      'a new profile and holiday',
      {
        desired: { businessHours: [wantProfile('eu', eu)], holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
      },
      ['create business_hours eu', 'create holiday ny'],
    ],
    [
      'everything in sync (no action, not even refresh)',
      {
        desired: { businessHours: [wantProfile('eu', eu)], holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
        remote: { businessHours: [remote('r1', eu)], holidays: [remote('h1', holiday('NY', '2027-01-01'))] },
        mappings: {
          businessHours: [mapped('business_hours', 'eu', 'r1', eu)],
          holidays: [mapped('holiday', 'ny', 'h1', holiday('NY', '2027-01-01'))],
        },
      },
      [],
    ],
    [
      'a config change is an update naming the fields',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU2', [ch('a'), ch('b')], '08:00'))] },
        remote: { businessHours: [remote('r1', eu)] },
        mappings: { businessHours: [mapped('business_hours', 'eu', 'r1', eu)], holidays: [] },
      },
      [
        'update business_hours eu r1 [name,schedule.monday,schedule.tuesday,schedule.wednesday,schedule.thursday,schedule.friday,channels]',
      ],
    ],
    [
      'a profile edited in the UI is drift, restored by an update',
      {
        desired: { businessHours: [wantProfile('eu', eu)] },
        remote: { businessHours: [remote('r1', always('EU', [ch('a')]))] },
        mappings: { businessHours: [mapped('business_hours', 'eu', 'r1', eu)], holidays: [] },
      },
      ['update business_hours eu r1 [type,schedule] drift:changed', 'drift business_hours eu changed'],
    ],
    [
      'a holiday deleted in the UI is drift, re-created',
      {
        desired: { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
        remote: { holidays: [] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'ny', 'h1', holiday('NY', '2027-01-01'))] },
      },
      ['create holiday ny drift:deleted', 'drift holiday ny deleted'],
    ],
    [
      'the UI already made the change the config asks: only a state refresh',
      {
        desired: { holidays: [wantHoliday('ny', holiday('New Year', '2027-01-01'))] },
        remote: { holidays: [remote('h1', holiday('New Year', '2027-01-01'))] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'ny', 'h1', holiday('NY', '2027-01-01'))] },
      },
      ['refresh holiday ny h1'],
    ],
    [
      'an identical unmanaged holiday is adopted, a different one stays unmanaged',
      {
        desired: { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
        remote: { holidays: [remote('h1', holiday('NY', '2027-01-02')), remote('h2', holiday('NY', '2027-01-01'))] },
      },
      ['adopt holiday ny h2', 'unmanaged holiday h1'],
    ],
    [
      'unmanaged objects are reported, and left alone with prune (it deletes only what the config managed)',
      {
        desired: { businessHours: [], holidays: [] },
        remote: {
          businessHours: [remote('r9', always('Old'))],
          holidays: [remote('h9', holiday('Old', '2020-01-01'))],
        },
        prune: true,
      },
      ['unmanaged business_hours r9', 'unmanaged holiday h9'],
    ],
    [
      'unmanaged objects are deleted with pruneUnmanaged',
      {
        desired: { businessHours: [], holidays: [] },
        remote: {
          businessHours: [remote('r9', always('Old'))],
          holidays: [remote('h9', holiday('Old', '2020-01-01'))],
        },
        pruneUnmanaged: true,
      },
      [
        'delete business_hours - r9 unmanaged',
        'delete holiday - h9 unmanaged',
        'unmanaged business_hours r9',
        'unmanaged holiday h9',
      ],
    ],
    [
      'a managed entry removed from the config is kept without prune',
      {
        desired: { holidays: [] },
        remote: { holidays: [remote('h1', holiday('NY', '2027-01-01'))] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'ny', 'h1', holiday('NY', '2027-01-01'))] },
      },
      ['removed holiday ny h1'],
    ],
    [
      'a managed entry removed from the config is deleted with prune',
      {
        desired: { holidays: [] },
        remote: { holidays: [remote('h1', holiday('NY', '2027-01-01'))] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'ny', 'h1', holiday('NY', '2027-01-01'))] },
        prune: true,
      },
      ['delete holiday ny h1 removed', 'removed holiday ny h1'],
    ],
    [
      'a mapping gone from both sides is forgotten',
      {
        desired: { holidays: [] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'old', 'h0', holiday('Old', '2020-01-01'))] },
      },
      ['forget holiday old h0'],
    ],
    [
      'a removed profile holding a claimed channel releases just that channel',
      {
        desired: { businessHours: [wantProfile('new', hours('New', [ch('a')]))] },
        remote: { businessHours: [remote('r1', always('Old', [ch('a'), ch('b')]))] },
        mappings: {
          businessHours: [mapped('business_hours', 'old', 'r1', always('Old', [ch('a'), ch('b')]))],
          holidays: [],
        },
      },
      ['create business_hours new', 'update business_hours old r1 [channels] release', 'removed business_hours old r1'],
    ],
    [
      'a claimed channel held by an unmanaged profile blocks, and the adopt line is shown',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU', [ch('a'), ch('a', 'livechat')]))] },
        remote: { businessHours: [remote('r7', always('Support', [ch('a'), ch('a', 'livechat')]))] },
      },
      [
        'create business_hours eu',
        'unmanaged business_hours r7',
        'blocked eu a/email by r7',
        'blocked eu a/livechat by r7',
        'hint eu adopt: "r7"',
      ],
    ],
    [
      'no adopt line when the channels sit in two unmanaged profiles',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU', [ch('a'), ch('b')]))] },
        remote: { businessHours: [remote('r7', always('A', [ch('a')])), remote('r8', always('B', [ch('b')]))] },
      },
      [
        'create business_hours eu',
        'unmanaged business_hours r7',
        'unmanaged business_hours r8',
        'blocked eu a/email by r7',
        'blocked eu b/email by r8',
      ],
    ],
    [
      'prune alone leaves an unmanaged holder, so it still blocks',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU', [ch('a')]))] },
        remote: { businessHours: [remote('r7', always('Support', [ch('a')]))] },
        prune: true,
      },
      ['create business_hours eu', 'unmanaged business_hours r7', 'blocked eu a/email by r7', 'hint eu adopt: "r7"'],
    ],
    [
      'with pruneUnmanaged an unmanaged holder is deleted instead of blocking',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU', [ch('a')]))] },
        remote: { businessHours: [remote('r7', always('Support', [ch('a')]))] },
        pruneUnmanaged: true,
      },
      [
        'create business_hours eu',
        'delete business_hours - r7 unmanaged',
        'unmanaged business_hours r7',
        'hint eu adopt: "r7"',
      ],
    ],
    [
      'adopt: takes over the named profile and updates it to the config',
      {
        desired: { businessHours: [wantProfile('eu', hours('EU', [ch('a')]), 0, 'r7')] },
        remote: { businessHours: [remote('r7', always('Support', [ch('a')]))] },
      },
      ['update business_hours eu r7 [name,type,schedule] adopted'],
    ],
    [
      'an adopted profile deleted in the UI is re-created, whatever adopt: still says',
      {
        desired: { businessHours: [wantProfile('eu', eu, 0, 'r7')] },
        remote: { businessHours: [] },
        mappings: { businessHours: [mapped('business_hours', 'eu', 'r7', eu)], holidays: [] },
      },
      ['create business_hours eu drift:deleted', 'drift business_hours eu deleted'],
    ],
    [
      'adopt: of an identical profile only records it',
      { desired: { businessHours: [wantProfile('eu', eu, 0, 'r7')] }, remote: { businessHours: [remote('r7', eu)] } },
      ['adopt business_hours eu r7'],
    ],
    [
      'swapping channels between two managed profiles needs no blocker',
      {
        desired: {
          businessHours: [wantProfile('x', always('X', [ch('b')])), wantProfile('y', always('Y', [ch('a')]), 1)],
        },
        remote: { businessHours: [remote('r1', always('X', [ch('a')])), remote('r2', always('Y', [ch('b')]))] },
        mappings: {
          businessHours: [
            mapped('business_hours', 'x', 'r1', always('X', [ch('a')])),
            mapped('business_hours', 'y', 'r2', always('Y', [ch('b')])),
          ],
          holidays: [],
        },
      },
      ['update business_hours x r1 [channels]', 'update business_hours y r2 [channels]'],
    ],
  ])('%s', (_label, over, expected) => {
    expect(summary(computePlan(input(over)))).toEqual(expected);
  });

  it('leaves a kind alone when its file is not configured', () => {
    const plan = computePlan(
      input({
        desired: { holidays: [] },
        remote: { holidays: [] },
        mappings: { businessHours: [mapped('business_hours', 'eu', 'r1', eu)], holidays: [] },
      }),
    );
    expect(plan.kinds).toEqual(['holiday']);
    expect(plan.actions).toEqual([]);
  });

  it('counts a state-only refresh as no change, and an adoption as a change', () => {
    const refresh = computePlan(
      input({
        desired: { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
        remote: { holidays: [remote('h1', holiday('NY', '2027-01-01'))] },
        mappings: { businessHours: [], holidays: [mapped('holiday', 'ny', 'h1', holiday('Old', '2027-01-01'))] },
      }),
    );
    expect(planHasChanges(refresh)).toBe(false);
    const adopt = computePlan(
      input({
        desired: { holidays: [wantHoliday('ny', holiday('NY', '2027-01-01'))] },
        remote: { holidays: [remote('h1', holiday('NY', '2027-01-01'))] },
      }),
    );
    expect(planHasChanges(adopt)).toBe(true);
  });
});

describe('checkAdoptTargets', () => {
  it('ignores adopt: on a key already mapped, even when its profile is gone; names a missing target otherwise', () => {
    const eu = hours('EU');
    const gone = [mapped('business_hours', 'eu', 'r7', eu)];
    expect(checkAdoptTargets([wantProfile('eu', eu, 0, 'r7')], [], gone)).toEqual([]);
    expect(checkAdoptTargets([wantProfile('eu', eu, 0, 'r7')], [], [])).toEqual([
      { path: 'bh.yaml, business_hours[0] (key "eu"), adopt', message: 'no business-hours profile with id r7' },
    ]);
  });
});
