import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HoursHarness, startHoursHarness, weekdays } from './hours-harness.js';

let h: HoursHarness;
beforeAll(async () => {
  h = await startHoursHarness();
});
afterAll(async () => {
  await h.close();
});

const profileIds = async (token = 'sandbox-admin') =>
  ((await h.request('GET', '/business-hours', { token })).body as Array<{ id: string }>).map((p) => p.id);

describe('sandbox business hours: listing and creating', () => {
  it('lists the seeded profiles newest first as a plain array', async () => {
    const res = await h.request('GET', '/business-hours');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((p: { name: string }) => p.name)).toEqual(['Always on', 'Support hours']);
    const [always, support] = res.body;
    expect(always).toMatchObject({ type: 'calendar_24_7', weekly_schedule: null });
    expect(support.weekly_schedule).toHaveLength(7);
    expect(support.inbox_channels).toEqual([{ inbox_id: h.inboxes.org1[0], channel: 'email' }]);
    expect(Object.keys(support).sort()).toEqual(
      ['created_at', 'id', 'inbox_channels', 'name', 'type', 'updated_at', 'weekly_schedule'].sort(),
    );
  });

  it('creates a profile with an overnight shift (201, {message, data}), stored in weekday order', async () => {
    const schedule = weekdays('09:00', '17:00').reverse();
    schedule[2] = { day: 'friday', start: '22:00', end: '06:00' };
    const res = await h.request('POST', '/business-hours', {
      body: { name: 'Night desk', type: 'business_hours', weekly_schedule: schedule, inbox_channels: [] },
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.data.weekly_schedule.map((e: { day: string }) => e.day)).toEqual([
      'monday',
      'tuesday',
      'wednesday',
      'thursday',
      'friday',
      'saturday',
      'sunday',
    ]);
    expect(res.body.data.weekly_schedule[4]).toEqual({ day: 'friday', start: '22:00', end: '06:00' });
    expect((await profileIds())[0]).toBe(res.body.data.id);
  });

  it('defaults the name and gives a calendar_24_7 profile a null schedule', async () => {
    const res = await h.request('POST', '/business-hours', { body: { type: 'calendar_24_7' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Business hours', weekly_schedule: null, inbox_channels: [] });
  });

  it.each([
    ['six entries', { weekly_schedule: weekdays('09:00', '17:00').slice(0, 6) }, 'weekly_schedule'],
    [
      'eight entries',
      { weekly_schedule: [...weekdays('09:00', '17:00'), { day: 'monday', start: null, end: null }] },
      'weekly_schedule',
    ],
    [
      'a day twice',
      { weekly_schedule: weekdays('09:00', '17:00').map((e, i) => (i === 6 ? { ...e, day: 'monday' } : e)) },
      'weekly_schedule.6.day',
    ],
    ['24:00', { weekly_schedule: weekdays('09:00', '24:00') }, 'weekly_schedule.0.end'],
    ['9:00 without padding', { weekly_schedule: weekdays('9:00', '17:00') }, 'weekly_schedule.0.start'],
    ['12:60', { weekly_schedule: weekdays('12:60', '17:00') }, 'weekly_schedule.0.start'],
    ['start equal to end', { weekly_schedule: weekdays('09:00', '09:00') }, 'weekly_schedule.0.end'],
    [
      'only one time null',
      { weekly_schedule: weekdays('09:00', '17:00').map((e, i) => (i === 1 ? { ...e, end: null } : e)) },
      'weekly_schedule.1.end',
    ],
    ['no schedule', { weekly_schedule: undefined }, 'weekly_schedule'],
    ['an unknown type', { type: 'sometimes' }, 'type'],
    ['an unknown field', { color: 'red' }, 'color'],
    [
      'an sms channel',
      { inbox_channels: [{ inbox_id: '11111111-1111-4111-8111-000000000002', channel: 'sms' }] },
      'inbox_channels.0.channel',
    ],
    [
      'an inbox of another organization',
      { inbox_channels: [{ inbox_id: '22222222-2222-4222-8222-000000000001', channel: 'email' }] },
      'inbox_channels.0.inbox_id',
    ],
    ['a name of 256 characters', { name: 'x'.repeat(256) }, 'name'],
  ])('refuses %s with 422 under the field', async (_label, patch, field) => {
    const before = await profileIds();
    const body = { type: 'business_hours', weekly_schedule: weekdays('09:00', '17:00'), ...patch };
    const res = await h.request('POST', '/business-hours', { body });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The given data was invalid.');
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(res.body.errors[field][0]).toEqual(expect.any(String));
    expect(await profileIds()).toEqual(before);
  });

  it('refuses a schedule sent for a calendar_24_7 profile', async () => {
    const res = await h.request('POST', '/business-hours', {
      body: { type: 'calendar_24_7', weekly_schedule: weekdays('09:00', '17:00') },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['weekly_schedule']);
  });
});

describe('sandbox business hours: one profile per channel', () => {
  it('answers a taken channel with the conflicting profile and keeps nothing of the write', async () => {
    const seeded = (await h.request('GET', '/business-hours')).body.find(
      (p: { name: string }) => p.name === 'Support hours',
    );
    const before = await profileIds();
    const res = await h.request('POST', '/business-hours', {
      body: {
        type: 'calendar_24_7',
        inbox_channels: [
          { inbox_id: h.inboxes.org1[0], channel: 'livechat' },
          { inbox_id: h.inboxes.org1[0], channel: 'email' },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: expect.any(String),
      conflicting_business_hour_id: seeded.id,
      inbox_id: h.inboxes.org1[0],
      channel: 'email',
    });
    expect(res.body.errors).toBeUndefined();
    expect(await profileIds()).toEqual(before);
    // The free channel of the refused write was not claimed either.
    const claim = await h.request('POST', '/business-hours', {
      body: { type: 'calendar_24_7', inbox_channels: [{ inbox_id: h.inboxes.org1[0], channel: 'livechat' }] },
    });
    expect(claim.status).toBe(201);
    await h.request('DELETE', `/business-hours/${claim.body.data.id}`);
  });

  it('rolls back a PATCH whose new channel set hits a taken channel', async () => {
    const created = await h.request('POST', '/business-hours', { body: { name: 'Roll', type: 'calendar_24_7' } });
    const id = created.body.data.id;
    const res = await h.request('PATCH', `/business-hours/${id}`, {
      body: {
        name: 'Renamed',
        inbox_channels: [
          { inbox_id: h.inboxes.org1[0], channel: 'livechat' },
          { inbox_id: h.inboxes.org1[1], channel: 'livechat' },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.inbox_id).toBe(h.inboxes.org1[1]);
    expect(res.body.channel).toBe('livechat');
    const after = await h.request('GET', `/business-hours/${id}`);
    expect(after.body.data).toMatchObject({ name: 'Roll', inbox_channels: [] });
  });

  it('releases the covered channels on DELETE (204)', async () => {
    const a = await h.request('POST', '/business-hours', {
      body: { type: 'calendar_24_7', inbox_channels: [{ inbox_id: h.inboxes.org1[0], channel: 'livechat' }] },
    });
    const del = await h.request('DELETE', `/business-hours/${a.body.data.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await h.request('GET', `/business-hours/${a.body.data.id}`)).status).toBe(404);
    const b = await h.request('POST', '/business-hours', {
      body: { type: 'calendar_24_7', inbox_channels: [{ inbox_id: h.inboxes.org1[0], channel: 'livechat' }] },
    });
    expect(b.status).toBe(201);
    await h.request('DELETE', `/business-hours/${b.body.data.id}`);
  });
});

describe('sandbox business hours: PATCH semantics', () => {
  it('keeps omitted keys, ignores explicit nulls, replaces the whole channel set', async () => {
    const created = await h.request('POST', '/business-hours', {
      body: {
        name: 'Patchable',
        type: 'business_hours',
        weekly_schedule: weekdays('08:00', '16:00'),
        inbox_channels: [],
      },
    });
    const id = created.body.data.id;
    const first = await h.request('PATCH', `/business-hours/${id}`, {
      body: { inbox_channels: [{ inbox_id: h.inboxes.org1[0], channel: 'livechat' }] },
    });
    expect(first.status).toBe(200);
    expect(first.body.message).toEqual(expect.any(String));
    expect(first.body.data).toMatchObject({ name: 'Patchable', type: 'business_hours' });
    expect(first.body.data.weekly_schedule).toEqual(weekdays('08:00', '16:00'));

    h.clock.set('2026-11-20T11:00:00Z');
    const second = await h.request('PATCH', `/business-hours/${id}`, {
      body: {
        name: null,
        weekly_schedule: null,
        type: null,
        inbox_channels: [{ inbox_id: h.inboxes.org1[1], channel: 'email' }],
      },
    });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({
      name: 'Patchable',
      type: 'business_hours',
      inbox_channels: [{ inbox_id: h.inboxes.org1[1], channel: 'email' }],
      updated_at: '2026-11-20T11:00:00.000Z',
    });
    expect(second.body.data.weekly_schedule).toEqual(weekdays('08:00', '16:00'));
    // The old channel is free again: the set was replaced, not extended.
    const claim = await h.request('POST', '/business-hours', {
      body: { type: 'calendar_24_7', inbox_channels: [{ inbox_id: h.inboxes.org1[0], channel: 'livechat' }] },
    });
    expect(claim.status).toBe(201);
    await h.request('DELETE', `/business-hours/${claim.body.data.id}`);
    await h.request('DELETE', `/business-hours/${id}`);
  });

  it('turns a profile into calendar_24_7 (schedule becomes null) and back only with a schedule', async () => {
    const created = await h.request('POST', '/business-hours', {
      body: { type: 'business_hours', weekly_schedule: weekdays('08:00', '16:00') },
    });
    const id = created.body.data.id;
    const to247 = await h.request('PATCH', `/business-hours/${id}`, { body: { type: 'calendar_24_7' } });
    expect(to247.body.data.weekly_schedule).toBeNull();
    const back = await h.request('PATCH', `/business-hours/${id}`, { body: { type: 'business_hours' } });
    expect(back.status).toBe(422);
    expect(Object.keys(back.body.errors)).toEqual(['weekly_schedule']);
    const withSchedule = await h.request('PATCH', `/business-hours/${id}`, {
      body: { type: 'business_hours', weekly_schedule: weekdays('07:00', '15:00') },
    });
    expect(withSchedule.status).toBe(200);
    expect(withSchedule.body.data.weekly_schedule[0]).toEqual({ day: 'monday', start: '07:00', end: '15:00' });
    await h.request('DELETE', `/business-hours/${id}`);
  });
});

describe('sandbox business hours: who may call', () => {
  const operations = (id: string) =>
    [
      ['GET', '/business-hours'],
      ['POST', '/business-hours'],
      ['GET', `/business-hours/${id}`],
      ['PATCH', `/business-hours/${id}`],
      ['DELETE', `/business-hours/${id}`],
      ['GET', '/holidays'],
      ['POST', '/holidays'],
      ['GET', `/holidays/${id}`],
      ['PATCH', `/holidays/${id}`],
      ['DELETE', `/holidays/${id}`],
    ] as const;

  it('refuses the partner-issued token on all ten operations (PAT only)', async () => {
    const [id] = await profileIds();
    for (const [method, path] of operations(id!)) {
      const res = await h.request(method, path, {
        token: 'sandbox-partner',
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect([method, path, res.status, res.body]).toEqual([
        method,
        path,
        403,
        { message: 'This action requires a personal access token.' },
      ]);
    }
    expect(await profileIds()).toContain(id);
  });

  it('lets a teammate read but not write; administrators write', async () => {
    const [id] = await profileIds();
    expect((await h.request('GET', '/business-hours', { token: 'sandbox-agent' })).status).toBe(200);
    expect((await h.request('GET', `/business-hours/${id}`, { token: 'sandbox-agent' })).status).toBe(200);
    expect((await h.request('GET', '/holidays', { token: 'sandbox-agent' })).status).toBe(200);
    for (const [method, path] of operations(id!).filter(([m]) => m !== 'GET')) {
      const res = await h.request(method, path, {
        token: 'sandbox-agent',
        body: method === 'DELETE' ? undefined : { name: 'x' },
      });
      expect([method, path, res.status, res.body]).toEqual([
        method,
        path,
        403,
        { message: 'This action is unauthorized.' },
      ]);
    }
    expect(await profileIds()).toContain(id);
  });

  it('answers 404 alike for an absent id and for an id of another organization', async () => {
    const [id] = await profileIds();
    const absent = await h.request('GET', '/business-hours/00000000-0000-4000-8000-000000000000');
    const foreign = await h.request('GET', `/business-hours/${id}`, { token: 'org2-admin' });
    expect(absent).toEqual({ status: 404, body: { message: 'Not found.' } });
    expect(foreign).toEqual(absent);
    expect(
      (await h.request('PATCH', `/business-hours/${id}`, { token: 'org2-admin', body: { name: 'x' } })).status,
    ).toBe(404);
    expect((await h.request('DELETE', `/business-hours/${id}`, { token: 'org2-admin' })).status).toBe(404);
    expect(await profileIds()).toContain(id);
    const org2 = await profileIds('org2-admin');
    expect(org2).toHaveLength(1);
    expect(org2).not.toContain(id);
  });

  it('answers 401 without a token (the harness stands in for the sandbox auth hook)', async () => {
    expect((await h.request('GET', '/business-hours', { token: 'nope' })).status).toBe(401);
  });
});
