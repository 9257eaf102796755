import type { FastifyInstance } from 'fastify';
import { holidayStatus, orderHolidays, todayIn } from './holiday-status.js';
import { authorize, type HoursContext, notFound } from './hours-context.js';
import { holidayToWire, type StoredHoliday } from './hours-model.js';
import type { HoursOrganization } from './hours-store.js';
import { validateHolidayBody } from './validate-holiday-body.js';

type HolidayParams = { Params: { holiday: string } };

/** GET/POST /holidays, GET/PATCH/DELETE /holidays/:holiday. */
export function registerHolidayRoutes(app: FastifyInstance, ctx: HoursContext): void {
  const today = (org: HoursOrganization) => todayIn(org.timezone, ctx.now());
  const wire = (h: StoredHoliday, org: HoursOrganization) => holidayToWire(h, holidayStatus(h, today(org)));

  app.get('/holidays', (req, reply) => {
    const org = authorize(ctx, req, reply, false);
    if (!org) return reply;
    const ordered = orderHolidays(ctx.store.holidays(org.id), today(org));
    return reply.send(ordered.map(([h, status]) => holidayToWire(h, status)));
  });

  app.post('/holidays', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const result = validateHolidayBody(req.body);
    if (!result.ok) return reply.code(422).send(result.errors.body());
    const now = ctx.now().toISOString();
    const holiday: StoredHoliday = {
      id: ctx.store.newId('holiday'),
      organizationId: org.id,
      ...result.fields,
      created_at: now,
      updated_at: now,
    };
    ctx.store.saveHoliday(holiday);
    return reply.code(201).send({ message: 'Holiday created.', data: wire(holiday, org) });
  });

  app.get<HolidayParams>('/holidays/:holiday', (req, reply) => {
    const org = authorize(ctx, req, reply, false);
    if (!org) return reply;
    const holiday = ctx.store.holiday(org.id, req.params.holiday);
    return holiday ? reply.send({ data: wire(holiday, org) }) : notFound(reply);
  });

  app.patch<HolidayParams>('/holidays/:holiday', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const existing = ctx.store.holiday(org.id, req.params.holiday);
    if (!existing) return notFound(reply);
    const result = validateHolidayBody(req.body ?? {}, existing);
    if (!result.ok) return reply.code(422).send(result.errors.body());
    const updated: StoredHoliday = { ...existing, ...result.fields, updated_at: ctx.now().toISOString() };
    ctx.store.saveHoliday(updated);
    return reply.send({ message: 'Holiday updated.', data: wire(updated, org) });
  });

  app.delete<HolidayParams>('/holidays/:holiday', (req, reply) => {
    const org = authorize(ctx, req, reply, true);
    if (!org) return reply;
    const existing = ctx.store.holiday(org.id, req.params.holiday);
    if (!existing) return notFound(reply);
    ctx.store.deleteHoliday(existing.id);
    return reply.code(204).send();
  });
}
