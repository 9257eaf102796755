import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HoursHarness, startHoursHarness } from './hours-harness.js';

let h: HoursHarness;
beforeAll(async () => {
  h = await startHoursHarness({ now: '2026-11-20T10:00:00Z' });
});
afterAll(async () => {
  await h.close();
});

async function clearHolidays(token = 'sandbox-admin') {
  for (const x of (await h.request('GET', '/holidays', { token })).body) {
    await h.request('DELETE', `/holidays/${x.id}`, { token });
  }
}

const create = (name: string, start_date: string, end_date: string) =>
  h.request('POST', '/holidays', { body: { name, start_date, end_date } });

describe('sandbox holidays: seed, create, validate', () => {
  it('seeds one past, one active and one upcoming holiday, in the documented order', async () => {
    const res = await h.request('GET', '/holidays');
    expect(res.status).toBe(200);
    expect(res.body.map((x: { status: string }) => x.status)).toEqual(['active', 'upcoming', 'past']);
    expect(res.body[0]).toMatchObject({ name: 'Company offsite', start_date: '2026-11-19', end_date: '2026-11-21' });
    expect(Object.keys(res.body[0]).sort()).toEqual(
      ['created_at', 'end_date', 'id', 'name', 'start_date', 'status', 'updated_at'].sort(),
    );
  });

  it('creates a one-day holiday (201) and one spanning New Year', async () => {
    const one = await create('Day off', '2026-12-24', '2026-12-24');
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({
      message: expect.any(String),
      data: { start_date: '2026-12-24', end_date: '2026-12-24', status: 'upcoming' },
    });
    const span = await create('Winter break', '2026-12-30', '2027-01-02');
    expect(span.status).toBe(201);
    const got = await h.request('GET', `/holidays/${span.body.data.id}`);
    expect(got.body.data).toMatchObject({ name: 'Winter break', start_date: '2026-12-30', end_date: '2027-01-02' });
  });

  it.each([
    ['an impossible date', { start_date: '2027-02-30' }, 'start_date'],
    ['a date without padding', { end_date: '2027-1-05' }, 'end_date'],
    ['end before start', { start_date: '2027-01-05', end_date: '2027-01-04' }, 'end_date'],
    ['a missing name', { name: undefined }, 'name'],
    ['a missing end date', { end_date: undefined }, 'end_date'],
    ['status (read-only)', { status: 'past' }, 'status'],
    ['an unknown field', { country: 'DE' }, 'country'],
  ])('refuses %s with 422 under the field', async (_label, patch, field) => {
    const res = await h.request('POST', '/holidays', {
      body: { name: 'Bad', start_date: '2027-01-04', end_date: '2027-01-05', ...patch },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The given data was invalid.');
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });
});

describe('sandbox holidays: PATCH', () => {
  it('validates one date against the stored other one, reporting under end_date', async () => {
    const created = await create('Range', '2027-03-10', '2027-03-12');
    const id = created.body.data.id;
    const late = await h.request('PATCH', `/holidays/${id}`, { body: { start_date: '2027-03-13' } });
    expect(late.status).toBe(422);
    expect(Object.keys(late.body.errors)).toEqual(['end_date']);
    const early = await h.request('PATCH', `/holidays/${id}`, { body: { end_date: '2027-03-09' } });
    expect(Object.keys(early.body.errors)).toEqual(['end_date']);
    const ok = await h.request('PATCH', `/holidays/${id}`, { body: { start_date: '2027-03-12' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ name: 'Range', start_date: '2027-03-12', end_date: '2027-03-12' });
    const renamed = await h.request('PATCH', `/holidays/${id}`, { body: { name: 'Renamed', end_date: null } });
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', end_date: '2027-03-12' });
  });

  it('deletes with 204; the id is then 404', async () => {
    const created = await create('Short lived', '2027-04-01', '2027-04-01');
    const del = await h.request('DELETE', `/holidays/${created.body.data.id}`);
    expect(del.status).toBe(204);
    expect((await h.request('GET', `/holidays/${created.body.data.id}`)).body).toEqual({ message: 'Not found.' });
    expect((await h.request('DELETE', `/holidays/${created.body.data.id}`)).status).toBe(404);
  });
});

describe('sandbox holidays: status and order follow the clock', () => {
  it('orders active first, upcoming by start, past most recent (latest end) first', async () => {
    await clearHolidays();
    h.clock.set('2026-06-15T12:00:00Z');
    await create('past-early', '2026-01-01', '2026-01-10');
    await create('past-late-end', '2026-02-01', '2026-06-01');
    await create('past-mid', '2026-05-20', '2026-05-25');
    await create('upcoming-late', '2026-09-01', '2026-09-01');
    await create('upcoming-soon', '2026-07-01', '2026-07-03');
    await create('active-long', '2026-06-01', '2026-06-30');
    await create('active-today', '2026-06-15', '2026-06-15');
    const names = (await h.request('GET', '/holidays')).body.map(
      (x: { name: string; status: string }) => `${x.status}:${x.name}`,
    );
    expect(names).toEqual([
      'active:active-long',
      'active:active-today',
      'upcoming:upcoming-soon',
      'upcoming:upcoming-late',
      'past:past-late-end',
      'past:past-mid',
      'past:past-early',
    ]);
    h.clock.set('2026-07-02T12:00:00Z');
    const later = (await h.request('GET', '/holidays')).body.map(
      (x: { name: string; status: string }) => `${x.status}:${x.name}`,
    );
    expect(later.slice(0, 3)).toEqual(['active:upcoming-soon', 'upcoming:upcoming-late', 'past:active-long']);
  });

  it("derives today's date in the organization's timezone, not UTC", async () => {
    await clearHolidays();
    await create('New Year', '2027-01-01', '2027-01-01');
    // 23:30 UTC on New Year's Eve is already 00:30 on 1 January in Berlin.
    h.clock.set('2026-12-31T23:30:00Z');
    expect((await h.request('GET', '/holidays')).body[0].status).toBe('active');
    h.clock.set('2026-12-31T22:30:00Z');
    expect((await h.request('GET', '/holidays')).body[0].status).toBe('upcoming');
    h.clock.set('2027-01-01T23:30:00Z');
    expect((await h.request('GET', '/holidays')).body[0].status).toBe('past');
  });
});

describe('sandbox holidays: who may call', () => {
  it('lets a teammate read, refuses its writes, and keeps organizations apart', async () => {
    const created = await create('Guarded', '2027-05-01', '2027-05-01');
    const id = created.body.data.id;
    expect((await h.request('GET', `/holidays/${id}`, { token: 'sandbox-agent' })).status).toBe(200);
    const denied = await h.request('POST', '/holidays', {
      token: 'sandbox-agent',
      body: { name: 'x', start_date: '2027-05-02', end_date: '2027-05-02' },
    });
    expect(denied).toEqual({ status: 403, body: { message: 'This action is unauthorized.' } });
    expect((await h.request('GET', `/holidays/${id}`, { token: 'org2-admin' })).status).toBe(404);
    expect((await h.request('PATCH', `/holidays/${id}`, { token: 'org2-admin', body: { name: 'x' } })).status).toBe(
      404,
    );
    const org2 = (await h.request('GET', '/holidays', { token: 'org2-admin' })).body;
    expect(org2.map((x: { name: string }) => x.name)).toEqual(['Summer closing']);
  });
});
