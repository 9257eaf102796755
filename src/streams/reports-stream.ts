import type { ApiObject } from '../api/index.js';
import { isForbidden, isNotFound, isUnreadable } from './api-error-status.js';
import { completenessFigure } from './completeness.js';
import { committedKeys } from './conversations/committed.js';
import { fingerprint } from './fingerprint.js';
import { inboxIdsFor } from './inbox-ids.js';
import { mapInOrder } from './map-in-order.js';
import {
  firstReportDay,
  largeBackfillMessage,
  REPORT_REQUESTS_WARN_AT,
  REPORTS_BACKFILL_LARGE,
  reportDays,
  utcDay,
} from './report-days.js';
import { reportScope } from './scopes.js';
import { forbiddenReason, forbiddenSkip } from './skip-when-forbidden.js';
import type { Emit, Stream, StreamContext } from './types.js';

/** Warning code of one inbox whose reports the token may not read. */
export const REPORTS_INBOX_FORBIDDEN = 'REPORTS_INBOX_FORBIDDEN';

/** Warning code of one report day whose body stayed unreadable. */
export const REPORT_DAY_UNREADABLE = 'REPORT_DAY_UNREADABLE';

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

/** Inboxes that answered 403, with the first such error: their other days are not asked for. */
type Forbidden = Map<string, unknown>;

/** Days of this run that stayed unreadable and are not held from an earlier run, by `inbox_id|day`. */
type Unreadable = Set<string>;

async function pullDay(
  ctx: StreamContext,
  request: DayRequest,
  forbidden: Forbidden,
  gone: Set<string>,
  unreadable: Unreadable,
): Promise<Emit | undefined> {
  const { inboxId, day } = request;
  if (forbidden.has(inboxId)) return undefined;
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
    // Authentication rule 7: this token (or its user) may not read this inbox's reports; it will not on
    // the next day either, so the inbox is skipped, and the stream when no inbox is readable.
    if (isForbidden(error)) {
      if (!forbidden.has(inboxId)) forbidden.set(inboxId, error);
      return undefined;
    }
    // A body that stayed unreadable (cut short, of the wrong shape): this day alone is skipped; it is not
    // recorded as pulled, so the next run asks again.
    if (isUnreadable(error)) return unreadableDay(ctx, request, unreadable, error);
    throw error;
  }
  const record: ApiObject = { ...body, inbox_id: inboxId, date: day };
  const hash = fingerprint(record);
  const scope = reportScope(inboxId);
  if (!ctx.fullRefresh && ctx.state.get(scope, day) === hash) return undefined;
  return { kind: 'row', table: 'report_productivity_daily', record, changes: [{ scope, key: day, value: hash }] };
}

function unreadableDay(ctx: StreamContext, request: DayRequest, unreadable: Unreadable, error: unknown): Emit {
  const { inboxId, day } = request;
  ctx.metrics?.count('unreadable_skipped');
  if (ctx.state.get(reportScope(inboxId), day) === undefined) unreadable.add(`${inboxId}|${day}`);
  const why = error instanceof Error ? error.message : String(error);
  const message = `report of inbox ${inboxId} for ${day} stayed unreadable after the retries (${why}); skipped, pulled by the next run`;
  ctx.log.warn({ stream: 'reports', inbox_id: inboxId, day, code: REPORT_DAY_UNREADABLE }, message);
  return { kind: 'warning', code: REPORT_DAY_UNREADABLE, message };
}

/**
 * The stream's completeness after its last commit: every day from the start
 * date through today, per listed inbox, against the days the state holds in
 * that range; the missing days of an inbox that vanished during the run, or
 * whose reports the token may not read, are explained.
 */
function reportsCompleteness(
  ctx: StreamContext,
  ids: string[],
  gone: Set<string>,
  forbidden: Forbidden,
  unreadable: Unreadable,
): Emit {
  const today = utcDay(new Date(ctx.clock.now()));
  const start = firstReportDay(ctx.config.reports.start_date, today);
  const days = start > today ? 0 : Math.round((Date.parse(today) - Date.parse(start)) / 86_400_000) + 1;
  let live = 0;
  let vanished = 0;
  let refused = 0;
  for (const inboxId of ids) {
    let held = 0;
    for (const day of committedKeys(ctx.state, reportScope(inboxId))) if (day >= start && day <= today) held += 1;
    live += held;
    if (gone.has(inboxId)) vanished += days - held;
    else if (forbidden.has(inboxId)) refused += days - held;
  }
  const figure = completenessFigure('reports', days * ids.length, live, {
    inbox_gone: vanished,
    inbox_forbidden: refused,
    days_unreadable: unreadable.size,
  });
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
    const inboxes = await inboxIdsFor(ctx, 'reports');
    if (inboxes.skip) yield inboxes.skip;
    const ids = inboxes.ids;
    if (ids === undefined) return;
    const requests = plan(ctx, ids);
    if (requests.length > REPORT_REQUESTS_WARN_AT) yield largeBackfillWarning(ctx, requests, ids.length);
    let left = requests.length;
    ctx.metrics?.remaining(left);
    const concurrency = ctx.config.source.rate_limit.concurrency;
    const forbidden: Forbidden = new Map();
    const gone = new Set<string>();
    const unreadable: Unreadable = new Set();
    const pull = (r: DayRequest) => pullDay(ctx, r, forbidden, gone, unreadable);
    for await (const emit of mapInOrder(requests, pull, { concurrency })) {
      ctx.metrics?.remaining(--left);
      if (emit) yield emit;
      if (ctx.signal.aborted) return;
    }
    yield* forbiddenWarnings(ctx, ids, forbidden);
    // A stream skipped whole (no inbox readable) has no figure, as any stream skipped on a 403.
    if (ctx.signal.aborted || (forbidden.size > 0 && forbidden.size === ids.length)) return;
    // Committed first: the figure counts what the state holds after this run.
    yield { kind: 'checkpoint' };
    if (!ctx.signal.aborted) yield reportsCompleteness(ctx, ids, gone, forbidden, unreadable);
  },
};

/** Said before the first request, so the log shows at once why this run will take hours. */
function largeBackfillWarning(ctx: StreamContext, requests: DayRequest[], inboxes: number): Emit {
  const days = new Set(requests.map((r) => r.day)).size;
  const message = largeBackfillMessage(
    requests.length,
    days,
    inboxes,
    ctx.config.reports.start_date ?? requests[0]?.day ?? '',
    ctx.config.source.rate_limit.requests_per_minute,
  );
  ctx.log.warn({ stream: 'reports', code: REPORTS_BACKFILL_LARGE, requests: requests.length }, message);
  return { kind: 'warning', code: REPORTS_BACKFILL_LARGE, message };
}

/** One STREAM_SKIPPED when no inbox's reports could be read, else one warning per refused inbox. */
function* forbiddenWarnings(ctx: StreamContext, ids: string[], forbidden: Forbidden): Iterable<Emit> {
  if (forbidden.size === 0) return;
  if (forbidden.size === ids.length) {
    const skip = forbiddenSkip('reports', forbidden.values().next().value);
    ctx.log.warn({ stream: 'reports', code: skip.code }, skip.message);
    yield { kind: 'warning', ...skip };
    return;
  }
  for (const [inboxId, error] of forbidden) {
    const message =
      `reports of inbox ${inboxId} skipped: GET /reports/${inboxId}/productivity answered 403 ` +
      `(${forbiddenReason(error)}); its days are pulled on a later run once the token may read them`;
    ctx.log.warn({ stream: 'reports', inbox_id: inboxId, code: REPORTS_INBOX_FORBIDDEN }, message);
    yield { kind: 'warning', code: REPORTS_INBOX_FORBIDDEN, message };
  }
}
