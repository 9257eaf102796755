const DAY_MS = 86_400_000;

/** Days pulled on an empty state when `reports.start_date` is not set. */
export const DEFAULT_REPORT_HISTORY_DAYS = 30;

/**
 * Report requests one run may plan before it warns: 10 000 take about 33 minutes
 * at the API's 300 requests a minute (see Limits), a `reports.start_date` years
 * back (one request per inbox and day) hours or days.
 */
export const REPORT_REQUESTS_WARN_AT = 10_000;

/** Warning code of a reports plan past REPORT_REQUESTS_WARN_AT. */
export const REPORTS_BACKFILL_LARGE = 'REPORTS_BACKFILL_LARGE';

/** What a plan of `requests` report requests costs at `requestsPerMinute`, and what to do about it. */
export function largeBackfillMessage(
  requests: number,
  days: number,
  inboxes: number,
  startDate: string,
  requestsPerMinute: number,
): string {
  const minutes = requests / requestsPerMinute;
  const time = minutes >= 90 ? `${(minutes / 60).toFixed(1)} hours` : `${Math.ceil(minutes)} minutes`;
  return (
    `reports: ${requests} requests to make (${days} days from reports.start_date ${startDate} × ${inboxes} inboxes, ` +
    `one request per inbox and day), about ${time} at ${requestsPerMinute} requests a minute; ` +
    'set reports.start_date later to pull less history'
  );
}

/** The UTC calendar day of an instant, as YYYY-MM-DD. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** `day` moved by `days` (negative = earlier), YYYY-MM-DD in and out. */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** The first report day: `startDate`, else DEFAULT_REPORT_HISTORY_DAYS days before `today`. */
export function firstReportDay(startDate: string | undefined, today: string): string {
  return startDate ?? addDays(today, -DEFAULT_REPORT_HISTORY_DAYS);
}

export interface ReportDaysOptions {
  /** First day to pull. @default DEFAULT_REPORT_HISTORY_DAYS days before `today` */
  startDate?: string;
  /** Today, UTC. */
  today: string;
  /** Days before today re-pulled every run (today itself always is). */
  lookbackDays: number;
  /** --full-refresh reports: pull every day from startDate again. */
  fullRefresh: boolean;
  /** Whether a day is already in committed state. */
  pulled(day: string): boolean;
}

/**
 * The days to request, oldest first: every day from the start date through
 * today that was never pulled, plus today and the `lookbackDays` days before it
 * again, because recent days still change (conversations get resolved late).
 * A day older than that which was pulled once is never requested again.
 */
export function reportDays(options: ReportDaysOptions): string[] {
  const start = firstReportDay(options.startDate, options.today);
  const firstRepulled = addDays(options.today, -options.lookbackDays);
  const days: string[] = [];
  for (let day = start; day <= options.today; day = addDays(day, 1)) {
    if (options.fullRefresh || day >= firstRepulled || !options.pulled(day)) days.push(day);
  }
  return days;
}

/**
 * What a first sync's reports cost, for `helpdesk-sync check`: the days times the
 * inboxes, or a warning past REPORT_REQUESTS_WARN_AT requests.
 */
export function firstSyncCost(
  settings: { reports: { start_date?: string; lookback_days: number }; rate: { requestsPerMinute: number } },
  inboxes: number,
  today: string,
): string | { warn: string } {
  const days = reportDays({
    startDate: settings.reports.start_date,
    today,
    lookbackDays: settings.reports.lookback_days,
    fullRefresh: true,
    pulled: () => false,
  }).length;
  const requests = days * inboxes;
  const answers = 'GET /reports/{inbox_id}/productivity answers';
  if (requests <= REPORT_REQUESTS_WARN_AT) return `${answers}; a first sync pulls ${days} days × ${inboxes} inboxes`;
  const start = settings.reports.start_date ?? `${DEFAULT_REPORT_HISTORY_DAYS} days ago`;
  const rpm = settings.rate.requestsPerMinute;
  return { warn: `${answers}; ${largeBackfillMessage(requests, days, inboxes, start, rpm)}` };
}
