import type { StreamName } from '../config/schema.js';

/**
 * Why what the API says exists and what the state holds can differ, when the
 * run knows why (docs/streams.md, "Completeness"). A positive count explains
 * fewer live keys than expected; a negative one explains more.
 */
export const EXPLAINED_REASONS = [
  /** Listed items without a primary key: written to `_rejected/`, never live. */
  'rejected',
  /** The listing's last page said it was the last and placed its last item before meta.total (a search cap): the tail was never listed. */
  'past_search_cap',
  /** The pages shifted during the scan: a conversation served again at a new position, or listed then confirmed deleted (404). */
  'listing_shifted',
  /** Recent-first first sync: conversations the backfill has not reached yet. */
  'backfill_pending',
  /** Listed conversations whose thread answered 403 (no access), so no thread is held. */
  'threads_forbidden',
  /** Listed conversations whose thread answered 404 while the conversation exists. */
  'threads_not_found',
  /** Listed conversations whose thread stayed unreadable (a body cut short or of the wrong shape): asked again next run. */
  'threads_unreadable',
  /** Items of list pages skipped because their body stayed unreadable: read by the next run. */
  'pages_unreadable',
  /** Report days whose body stayed unreadable: pulled by the next run. */
  'days_unreadable',
  /** Held but not listed this run: kept until a complete listing proves them gone (negative). */
  'kept_unlisted',
  /** Contacts are never tombstoned: held though no listed conversation embeds them (negative). */
  'never_tombstoned',
  /** Report days of inboxes that vanished while their days were pulled. */
  'inbox_gone',
  /** Report days of inboxes whose reports the token may not read (403; REPORTS_INBOX_FORBIDDEN). */
  'inbox_forbidden',
] as const;
export type ExplainedReason = (typeof EXPLAINED_REASONS)[number];

export interface ExplainedDifference {
  reason: ExplainedReason;
  /** Positive: that many fewer live keys than expected; negative: that many more. */
  count: number;
}

/**
 * One stream's completeness after a run: what the API says exists against what
 * the state holds as live once the run committed, with the part of the
 * difference the run can explain. `unexplained` > 0 means something is missing
 * for no known reason (the `INCOMPLETE` warning); < 0 means the state holds
 * more than the API counts for no known reason (a conversation deleted during
 * the scan, tombstoned by the next run).
 */
export interface CompletenessFigure {
  stream: StreamName;
  /** What the API says exists: a listing's meta.total, a list's length, a report's days. */
  expected: number;
  /** Keys the state holds as live after the run's last commit. */
  live: number;
  /** Known causes of the difference, zero counts left out. */
  explained: ExplainedDifference[];
  /** expected − live − Σ explained. */
  unexplained: number;
  /**
   * Holes the conversation listing saw mid-list and no re-read filled, when
   * the figure has an unexplained shortfall: `missing` items somewhere in
   * positions `from`-`to` of the listing. The next run re-reads them first.
   */
  holes?: Array<{ from: number; to: number; missing: number }>;
}

/** Warning code of a figure with an unexplained shortfall. */
export const INCOMPLETE = 'INCOMPLETE';

/** A figure from its parts; explanations of zero are dropped, `unexplained` is what they leave. */
export function completenessFigure(
  stream: StreamName,
  expected: number,
  live: number,
  explained: Partial<Record<ExplainedReason, number>> = {},
): CompletenessFigure {
  const parts = EXPLAINED_REASONS.filter((reason) => (explained[reason] ?? 0) !== 0).map((reason) => ({
    reason,
    count: explained[reason] as number,
  }));
  const unexplained = expected - live - parts.reduce((sum, p) => sum + p.count, 0);
  return { stream, expected, live, explained: parts, unexplained };
}

/** `1 past_search_cap, -2 kept_unlisted`: the explained part in words, or '' when there is none. */
export function describeExplained(figure: CompletenessFigure): string {
  return figure.explained.map((e) => `${e.count} ${e.reason}`).join(', ');
}

/** The `INCOMPLETE` warning's text for a figure with an unexplained shortfall, numbers included. */
export function incompleteMessage(figure: CompletenessFigure): string {
  const explained = describeExplained(figure);
  return (
    `${figure.stream}: the API says ${figure.expected} exist, the state holds ${figure.live} after this run; ` +
    `${figure.unexplained} missing for no known reason` +
    (explained ? ` (explained: ${explained})` : '') +
    (figure.holes?.length ? `; ${describeHoles(figure.holes)}; the next run re-reads those positions first` : '')
  );
}

/**
 * `1 conversation of the listing, somewhere in its positions 101-200, was served by no page
 * and found by no re-read`: the holes in words.
 */
export function describeHoles(holes: NonNullable<CompletenessFigure['holes']>): string {
  const missing = holes.reduce((n, h) => n + h.missing, 0);
  const where = holes.map((h) => (h.from === h.to ? `${h.from}` : `${h.from}-${h.to}`)).join(', ');
  const what = missing === 1 ? '1 conversation of the listing' : `${missing} conversations of the listing`;
  return `${what}, somewhere in its positions ${where}, ${missing === 1 ? 'was' : 'were'} served by no page and found by no re-read`;
}
