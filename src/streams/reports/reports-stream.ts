import type { ApiObject } from '../../api/index.js';
import type { CatalogStream } from '../../catalog/catalog.js';
import { isForbidden, isNotFound, isUnreadable } from '../api-error-status.js';
import { fingerprint } from '../fingerprint.js';
import { inboxIdsFor } from '../inbox-ids.js';
import { mapInOrder } from '../map-in-order.js';
import { reportScope } from '../scopes.js';
import { forbiddenReason, forbiddenSkip } from '../skip-when-forbidden.js';
import type { ReportStreamSettings } from '../stream-settings.js';
import type { Emit, ProbeContext, Stream, StreamContext } from '../types.js';
import {
  firstSyncCost,
  largeBackfillMessage,
  REPORT_REQUESTS_WARN_AT,
  REPORTS_BACKFILL_LARGE,
  reportDays,
  utcDay,
} from './report-days.js';
import { reportsCompleteness } from './reports-completeness.js';

/** A stream declared with a `report-days` read. */
export type ReportsDefinition = Extract<CatalogStream, { read: { kind: 'report-days' } }>;

/** One run of the reports stream: its declaration, its settings, the run's context. */
interface ReportsRun {
  definition: ReportsDefinition;
  settings: ReportStreamSettings;
  ctx: StreamContext;
}

/** Warning code of one inbox whose reports the token may not read. */
export const REPORTS_INBOX_FORBIDDEN = 'REPORTS_INBOX_FORBIDDEN';

/** Warning code of one report day whose body stayed unreadable. */
export const REPORT_DAY_UNREADABLE = 'REPORT_DAY_UNREADABLE';

interface DayRequest {
  inboxId: string;
  day: string;
}

function plan({ ctx, settings }: ReportsRun, ids: string[]): DayRequest[] {
  const today = utcDay(new Date(ctx.clock.now()));
  const requests: DayRequest[] = [];
  for (const inboxId of ids) {
    const scope = reportScope(inboxId);
    const days = reportDays({
      startDate: settings.reports.start_date,
      today,
      lookbackDays: settings.reports.lookback_days,
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
  { definition, ctx }: ReportsRun,
  request: DayRequest,
  forbidden: Forbidden,
  gone: Set<string>,
  unreadable: Unreadable,
): Promise<Emit | undefined> {
  const { inboxId, day } = request;
  if (forbidden.has(inboxId)) return undefined;
  let body: ApiObject;
  try {
    body = await one(ctx.api.read(dayRequest(definition, inboxId, day), { signal: ctx.signal }));
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
  const table = definition.tables[0].name;
  return { kind: 'row', table, record, changes: [{ scope, key: day, value: hash }] };
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

/** GET /reports/{inbox_id}/productivity for one day: start_date = end_date = day. */
function dayRequest(definition: ReportsDefinition, inboxId: string, day: string) {
  return { ...definition.read.endpoint, params: { inbox_id: inboxId }, query: { start_date: day, end_date: day } };
}

/** The one resource of a `single` read. */
async function one(items: AsyncIterable<ApiObject>): Promise<ApiObject> {
  for await (const item of items) return item;
  throw new TypeError('a single read yielded nothing');
}

/**
 * report_productivity_daily: one request per inbox and UTC day
 * (GET /reports/{inbox_id}/productivity with start_date = end_date = day), so
 * each row is one day of one inbox and a day can be re-pulled alone. Which days:
 * see reportDays. A day's row is emitted only when its content changed.
 */
export function reportsStream(definition: ReportsDefinition, settings: ReportStreamSettings): Stream {
  return {
    name: definition.name,
    run: (ctx) => reportsRun({ definition, settings, ctx }),
    /** The day of one inbox, and what a first sync's reports cost (a warning past REPORT_REQUESTS_WARN_AT). */
    async probe({ api, inboxIds, today }: ProbeContext) {
      const inboxId = inboxIds[0];
      if (!inboxId) return 'no inbox to probe';
      await one(api.read(dayRequest(definition, inboxId, today)));
      return firstSyncCost(settings, inboxIds.length, today);
    },
  };
}

async function* reportsRun(run: ReportsRun): AsyncIterable<Emit> {
  const { ctx } = run;
  const inboxes = await inboxIdsFor(ctx, 'reports');
  if (inboxes.skip) yield inboxes.skip;
  const ids = inboxes.ids;
  if (ids === undefined) return;
  const requests = plan(run, ids);
  if (requests.length > REPORT_REQUESTS_WARN_AT) yield largeBackfillWarning(run, requests, ids.length);
  let left = requests.length;
  ctx.metrics?.remaining(left);
  const forbidden: Forbidden = new Map();
  const gone = new Set<string>();
  const unreadable: Unreadable = new Set();
  const concurrency = run.settings.rate.concurrency;
  const pull = (r: DayRequest) => pullDay(run, r, forbidden, gone, unreadable);
  for await (const emit of mapInOrder(requests, pull, { concurrency })) {
    ctx.metrics?.remaining(--left);
    if (emit) yield emit;
    if (ctx.signal.aborted) return;
  }
  yield* forbiddenWarnings(run, ids, forbidden);
  // A stream skipped whole (no inbox readable) has no figure, as any stream skipped on a 403.
  if (ctx.signal.aborted || (forbidden.size > 0 && forbidden.size === ids.length)) return;
  // Committed first: the figure counts what the state holds after this run.
  yield { kind: 'checkpoint' };
  if (!ctx.signal.aborted) {
    yield {
      kind: 'completeness',
      figure: reportsCompleteness(ctx, run.settings, ids, { gone, forbidden, unreadable }),
    };
  }
}

/** Said before the first request, so the log shows at once why this run will take hours. */
function largeBackfillWarning({ ctx, settings }: ReportsRun, requests: DayRequest[], inboxes: number): Emit {
  const days = new Set(requests.map((r) => r.day)).size;
  const message = largeBackfillMessage(
    requests.length,
    days,
    inboxes,
    settings.reports.start_date ?? requests[0]?.day ?? '',
    settings.rate.requestsPerMinute,
  );
  ctx.log.warn({ stream: 'reports', code: REPORTS_BACKFILL_LARGE, requests: requests.length }, message);
  return { kind: 'warning', code: REPORTS_BACKFILL_LARGE, message };
}

/** One STREAM_SKIPPED when no inbox's reports could be read, else one warning per refused inbox. */
function* forbiddenWarnings({ ctx, definition }: ReportsRun, ids: string[], forbidden: Forbidden): Iterable<Emit> {
  if (forbidden.size === 0) return;
  if (forbidden.size === ids.length) {
    const skip = forbiddenSkip(definition, forbidden.values().next().value);
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
