import type { ApiObject } from '../api/types.js';
import { isNotFound } from './api-error-status.js';
import { completenessFigure } from './completeness.js';
import { committedKeys } from './conversations/committed.js';
import { fingerprint } from './fingerprint.js';
import { inboxIds } from './inbox-ids.js';
import { mapInOrder } from './map-in-order.js';
import { firstReportDay, reportDays, utcDay } from './report-days.js';
import { reportScope } from './scopes.js';
import type { Emit, Stream, StreamContext } from './types.js';

interface DayRequest {
  inboxId: string;
  day: string;
}

function plan(ctx: StreamContext, ids: string[]): DayRequest[] {
  const today = utcDay(new Date(ctx.clock.now()));
  const requests: DayRequest[] = [];
  for (const inboxId of ids) {
    const scope = reportScope(inboxId);
    const days = reportDays({
      startDate: ctx.config.reports.start_date,
      today,
      lookbackDays: ctx.config.reports.lookback_days,
      fullRefresh: ctx.fullRefresh,
      pulled: (day) => ctx.state.get(scope, day) !== undefined,
    });
    for (const day of days) requests.push({ inboxId, day });
  }
  return requests;
}

async function pullDay(ctx: StreamContext, request: DayRequest, gone: Set<string>): Promise<Emit | undefined> {
  const { inboxId, day } = request;
  let body: ApiObject;
  try {
    body = await ctx.api.productivityReport(inboxId, day, day, { signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) return undefined;
    // The inbox vanished after it was listed; its days are simply not pulled.
    if (isNotFound(error)) {
      gone.add(inboxId);
      return undefined;
    }
    throw error;
  }
  const record: ApiObject = { ...body, inbox_id: inboxId, date: day };
  const hash = fingerprint(record);
  const scope = reportScope(inboxId);
  if (!ctx.fullRefresh && ctx.state.get(scope, day) === hash) return undefined;
  return { kind: 'row', table: 'report_productivity_daily', record, changes: [{ scope, key: day, value: hash }] };
}

/**
 * The stream's completeness after its last commit: every day from the start
 * date through today, per listed inbox, against the days the state holds in
 * that range; the missing days of an inbox that vanished during the run are
 * explained.
 */
function reportsCompleteness(ctx: StreamContext, ids: string[], gone: Set<string>): Emit {
  const today = utcDay(new Date(ctx.clock.now()));
  const start = firstReportDay(ctx.config.reports.start_date, today);
  const days = start > today ? 0 : Math.round((Date.parse(today) - Date.parse(start)) / 86_400_000) + 1;
  let live = 0;
  let vanished = 0;
  for (const inboxId of ids) {
    let held = 0;
    for (const day of committedKeys(ctx.state, reportScope(inboxId))) if (day >= start && day <= today) held += 1;
    live += held;
    if (gone.has(inboxId)) vanished += days - held;
  }
  const figure = completenessFigure('reports', days * ids.length, live, { inbox_gone: vanished });
  return { kind: 'completeness', figure };
}

/**
 * report_productivity_daily: one request per inbox and UTC day
 * (GET /reports/{inbox_id}/productivity with start_date = end_date = day), so
 * each row is one day of one inbox and a day can be re-pulled alone. Which days:
 * see reportDays. A day's row is emitted only when its content changed.
 */
export const reportsStream: Stream = {
  name: 'reports',
  tables: ['report_productivity_daily'],
  after: ['inboxes'],
  async *run(ctx: StreamContext): AsyncIterable<Emit> {
    const ids = await inboxIds(ctx);
    if (ids === undefined) return;
    const requests = plan(ctx, ids);
    let left = requests.length;
    ctx.metrics?.remaining(left);
    const concurrency = ctx.config.source.rate_limit.concurrency;
    const gone = new Set<string>();
    for await (const emit of mapInOrder(requests, (r) => pullDay(ctx, r, gone), { concurrency })) {
      ctx.metrics?.remaining(--left);
      if (emit) yield emit;
      if (ctx.signal.aborted) return;
    }
    // Committed first: the figure counts what the state holds after this run.
    yield { kind: 'checkpoint' };
    if (!ctx.signal.aborted) yield reportsCompleteness(ctx, ids, gone);
  },
};
