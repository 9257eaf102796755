import type { ApiObject, BusinessHoursWrite, HolidayWrite } from '../../../src/api/endpoints/types.js';
import { API_ERROR_CODES, FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import { statusRule } from '../../../src/api/errors/status-table.js';
import type { PushApi } from '../../../src/push/plan/push-api.js';

/**
 * An in-memory stand-in for the business-hours and holiday endpoints that keeps
 * the rule apply has to respect: a channel belongs to at most one profile, and a
 * write that breaks it is refused with 422 and rolled back. It counts requests,
 * and can fail chosen writes (a status, or a timeout after or before applying).
 */
export interface FakeCall {
  method: string;
  path: string;
  body?: unknown;
}

type Failure = { status: number; body?: unknown } | { timeout: 'after-apply' | 'before-apply' };

export class FakePushApi implements PushApi {
  readonly calls: FakeCall[] = [];
  readonly profiles = new Map<string, ApiObject>();
  readonly holidays = new Map<string, ApiObject>();
  inboxes: ApiObject[] = [
    { id: 'inbox-a', name: 'Support' },
    { id: 'inbox-b', name: 'Sales' },
    { id: 'inbox-c', name: 'Billing' },
  ];
  private counter = 0;
  private failures: Array<{ match: (c: FakeCall) => boolean; failure: Failure }> = [];

  /** The next call matching `method` (and `path` prefix) fails once. */
  failNext(method: string, pathPrefix: string, failure: Failure): void {
    this.failures.push({ match: (c) => c.method === method && c.path.startsWith(pathPrefix), failure });
  }

  writes(): FakeCall[] {
    return this.calls.filter((c) => c.method !== 'GET');
  }

  seedProfile(p: Omit<ApiObject, 'id'> & { id?: string }): string {
    const id = p.id ?? this.nextId('bh');
    this.profiles.set(id, { weekly_schedule: null, inbox_channels: [], ...p, id });
    return id;
  }

  seedHoliday(h: { name: string; start_date: string; end_date: string; id?: string }): string {
    const id = h.id ?? this.nextId('hol');
    this.holidays.set(id, { ...h, id, status: 'upcoming' });
    return id;
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${String(this.counter).padStart(3, '0')}`;
  }

  /** Records the call, then applies a scheduled failure around `effect`. */
  private async call<T>(method: string, path: string, body: unknown, effect: () => T): Promise<T> {
    const call = { method, path, ...(body === undefined ? {} : { body: structuredClone(body) }) };
    this.calls.push(call);
    const i = this.failures.findIndex((f) => f.match(call));
    const failure = i >= 0 ? this.failures.splice(i, 1)[0]!.failure : undefined;
    if (failure && 'timeout' in failure) {
      if (failure.timeout === 'after-apply') effect();
      throw new RetriableApiError({
        code: API_ERROR_CODES.timeout,
        method,
        url: `http://fake/v1${path}`,
        message: `${method} ${path} timed out`,
      });
    }
    if (failure) throw this.error(method, path, failure.status, failure.body);
    return effect();
  }

  private error(method: string, path: string, status: number, body?: unknown): FatalApiError {
    const b = (body ?? { message: 'Failed.' }) as { message?: string; errors?: Record<string, string[]> };
    return new FatalApiError({
      code: statusRule(status).code,
      status,
      method,
      url: `http://fake/v1${path}`,
      apiMessage: b.message,
      fieldErrors: b.errors,
      body,
    });
  }

  private checkChannels(
    profileId: string,
    channels: Array<{ inbox_id: string; channel: string }>,
    method: string,
    path: string,
  ): void {
    for (const c of channels) {
      for (const [id, p] of this.profiles) {
        if (id === profileId) continue;
        const held = (p.inbox_channels as Array<{ inbox_id: string; channel: string }>).some(
          (x) => x.inbox_id === c.inbox_id && x.channel === c.channel,
        );
        if (held) {
          throw this.error(method, path, 422, {
            message: 'taken',
            conflicting_business_hour_id: id,
            inbox_id: c.inbox_id,
            channel: c.channel,
          });
        }
      }
    }
  }

  async *listInboxes(): AsyncIterable<ApiObject> {
    this.calls.push({ method: 'GET', path: '/inboxes' });
    yield* this.inboxes;
  }

  listBusinessHours = () =>
    this.call('GET', '/business-hours', undefined, () =>
      [...this.profiles.values()].reverse().map((p) => structuredClone(p)),
    );
  getBusinessHours = (id: string) =>
    this.call('GET', `/business-hours/${id}`, undefined, () => structuredClone(this.profiles.get(id) ?? null));
  createBusinessHours = (body: BusinessHoursWrite) =>
    this.call('POST', '/business-hours', body, () => {
      this.checkChannels('', body.inbox_channels ?? [], 'POST', '/business-hours');
      const id = this.nextId('bh');
      const p = {
        id,
        name: body.name ?? 'Business hours',
        type: body.type,
        weekly_schedule: body.type === 'business_hours' ? body.weekly_schedule : null,
        inbox_channels: body.inbox_channels ?? [],
      };
      this.profiles.set(id, p);
      return structuredClone(p) as ApiObject;
    });
  updateBusinessHours = (id: string, body: BusinessHoursWrite) =>
    this.call('PATCH', `/business-hours/${id}`, body, () => {
      const p = this.profiles.get(id);
      if (!p) throw this.error('PATCH', `/business-hours/${id}`, 404, { message: 'Not found.' });
      if (body.inbox_channels) this.checkChannels(id, body.inbox_channels, 'PATCH', `/business-hours/${id}`);
      const next = { ...p };
      for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) next[k] = v;
      if (next.type === 'calendar_24_7') next.weekly_schedule = null;
      this.profiles.set(id, next);
      return structuredClone(next);
    });
  deleteBusinessHours = (id: string) =>
    this.call('DELETE', `/business-hours/${id}`, undefined, () => {
      if (!this.profiles.delete(id))
        throw this.error('DELETE', `/business-hours/${id}`, 404, { message: 'Not found.' });
    });

  listHolidays = () =>
    this.call('GET', '/holidays', undefined, () => [...this.holidays.values()].map((h) => structuredClone(h)));
  getHoliday = (id: string) =>
    this.call('GET', `/holidays/${id}`, undefined, () => structuredClone(this.holidays.get(id) ?? null));
  createHoliday = (body: HolidayWrite) =>
    this.call('POST', '/holidays', body, () => {
      const id = this.nextId('hol');
      const h = { id, ...body, status: 'upcoming' };
      this.holidays.set(id, h);
      return structuredClone(h) as ApiObject;
    });
  updateHoliday = (id: string, body: HolidayWrite) =>
    this.call('PATCH', `/holidays/${id}`, body, () => {
      const h = this.holidays.get(id);
      if (!h) throw this.error('PATCH', `/holidays/${id}`, 404, { message: 'Not found.' });
      const next = { ...h, ...body };
      if (String(next.end_date) < String(next.start_date)) {
        throw this.error('PATCH', `/holidays/${id}`, 422, {
          message: 'The given data was invalid.',
          errors: { end_date: ['before start'] },
        });
      }
      this.holidays.set(id, next);
      return structuredClone(next);
    });
  deleteHoliday = (id: string) =>
    this.call('DELETE', `/holidays/${id}`, undefined, () => {
      if (!this.holidays.delete(id)) throw this.error('DELETE', `/holidays/${id}`, 404, { message: 'Not found.' });
    });
}
