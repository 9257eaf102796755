import { committedKeys } from '../committed.js';
import { type CompletenessFigure, completenessFigure } from '../completeness.js';
import { reportScope } from '../scopes.js';
import type { ReportStreamSettings } from '../stream-settings.js';
import type { StreamContext } from '../types.js';
import { firstReportDay, utcDay } from './report-days.js';

/** What the run observed of the inboxes and days it could not hold. */
export interface ReportObservations {
  /** Inboxes whose report answered 404 (the inbox vanished during the run). */
  gone: ReadonlySet<string>;
  /** Inboxes whose report answered 403. */
  forbidden: ReadonlyMap<string, unknown>;
  /** `inbox_id|day` of days whose body stayed unreadable and no earlier run holds. */
  unreadable: ReadonlySet<string>;
}

/**
 * The stream's completeness after its last commit: every day from the start
 * date through today, per listed inbox, against the days the state holds in
 * that range. Only what the run observed explains a missing day: the days of
 * an inbox that answered 404 (vanished) or 403, and each day whose answer
 * stayed unreadable; any other missing day is unexplained.
 */
export function reportsCompleteness(
  ctx: Pick<StreamContext, 'state' | 'clock'>,
  settings: ReportStreamSettings,
  ids: readonly string[],
  seen: ReportObservations,
): CompletenessFigure {
  const today = utcDay(new Date(ctx.clock.now()));
  const start = firstReportDay(settings.reports.start_date, today);
  const days = start > today ? 0 : Math.round((Date.parse(today) - Date.parse(start)) / 86_400_000) + 1;
  let live = 0;
  let vanished = 0;
  let refused = 0;
  for (const inboxId of ids) {
    let held = 0;
    for (const day of committedKeys(ctx.state, reportScope(inboxId))) if (day >= start && day <= today) held += 1;
    live += held;
    if (seen.gone.has(inboxId)) vanished += days - held;
    else if (seen.forbidden.has(inboxId)) refused += days - held;
  }
  return completenessFigure('reports', days * ids.length, live, {
    inbox_gone: vanished,
    inbox_forbidden: refused,
    days_unreadable: seen.unreadable.size,
  });
}
