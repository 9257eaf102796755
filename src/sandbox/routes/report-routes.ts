import type { FastifyInstance } from 'fastify';
import { isDate } from '../model/time-zone.js';
import { invalid, notFound } from '../protocol/errors.js';
import { callerOf } from '../requests/auth.js';
import { productivityReport } from '../store/productivity-report.js';
import { answerWrongShape, stuckReport, WRONG_SHAPE_BODY } from '../store/wrong-shape.js';
import type { RouteContext } from './route-context.js';

type ReportRequest = { Params: { inbox_id: string }; Querystring: Record<string, string | undefined> };

/** GET /reports/:inbox_id/productivity?start_date&end_date (both required, format date). */
export function registerReportRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.get<ReportRequest>('/reports/:inbox_id/productivity', async (request) => {
    const inbox = store.inbox(callerOf(request).organization.id, request.params.inbox_id);
    if (!inbox) throw notFound();
    const { start_date: start, end_date: end } = request.query;
    const errors: Record<string, string[]> = {};
    for (const [field, value] of [
      ['start_date', start],
      ['end_date', end],
    ] as const) {
      if (value === undefined || value === '') errors[field] = [`The ${field.replace('_', ' ')} field is required.`];
      else if (!isDate(value)) errors[field] = [`The ${field.replace('_', ' ')} field must be a date (YYYY-MM-DD).`];
    }
    if (!errors.start_date && !errors.end_date && end! < start!) {
      errors.end_date = ['The end date must be a date after or equal to start date.'];
    }
    if (Object.keys(errors).length > 0) throw invalid(errors);
    // wrong-shape, stuck-wrong-shape: a 200 whose JSON holds no report.
    const stuck = stuckReport(store);
    const isStuck = stuck?.inboxId === inbox.id && start === stuck.day && end === stuck.day;
    const key = `report:${inbox.id}:${start}:${end}`;
    if (answerWrongShape(store, { once: key, stuck: isStuck ? key : undefined })) return WRONG_SHAPE_BODY;
    return { data: productivityReport(store, inbox.id, start!, end!) };
  });
}
