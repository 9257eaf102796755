import type { RequestStats } from '../../api/index.js';
import type { OutputStats } from '../../commit/output-session.js';
import { TABLE_NAMES, type TableName } from '../../output/tables.js';
import type { CompletenessFigure } from '../../streams/completeness.js';
import type { BackfillProgress, StreamCounter } from '../../streams/types.js';
import type { Selection } from '../resolve-selection.js';
import type { SyncSummary, TableCounts } from '../sync-types.js';

export interface SummaryInput {
  runId: string;
  status: SyncSummary['status'];
  startedAt: Date;
  finishedAt: Date;
  selection: Selection;
  output: OutputStats;
  requests: RequestStats;
  warnings: SyncSummary['warnings'];
  skipped: SyncSummary['skipped_streams'];
  failed: SyncSummary['failed_streams'];
  counters: Record<StreamCounter, number>;
  completeness: CompletenessFigure[];
  backfill?: BackfillProgress;
}

/** The run summary; every table is listed (zeros included) so its shape never varies. */
export function buildSummary(input: SummaryInput): SyncSummary {
  const tables = {} as Record<TableName, TableCounts>;
  for (const table of TABLE_NAMES) {
    tables[table] = {
      rows: input.output.rows[table] ?? 0,
      tombstones: input.output.tombstones[table] ?? 0,
      rejected: input.output.rejected[table] ?? 0,
    };
  }
  return {
    run_id: input.runId,
    status: input.status,
    started_at: input.startedAt.toISOString(),
    finished_at: input.finishedAt.toISOString(),
    duration_ms: input.finishedAt.getTime() - input.startedAt.getTime(),
    streams: input.selection.streams,
    full_refresh: input.selection.streams.filter((s) => input.selection.fullRefresh.has(s)),
    tables,
    sanitized_strings: TABLE_NAMES.reduce((n, t) => n + input.output.sanitizedStrings[t], 0),
    coerced_values: TABLE_NAMES.reduce((n, t) => n + input.output.coercedValues[t], 0),
    requests: input.requests,
    warnings: input.warnings,
    skipped_streams: input.skipped,
    failed_streams: input.failed,
    conversations_scanned: input.counters.conversations_scanned,
    conversations_changed: input.counters.conversations_changed,
    conversations_relisted: input.counters.conversations_relisted,
    messages_fetched: input.counters.messages_fetched,
    forbidden_skipped: input.counters.forbidden_skipped,
    unreadable_skipped: input.counters.unreadable_skipped,
    listing_repairs: input.counters.listing_repairs,
    listing_recovered: input.counters.listing_recovered,
    completeness: input.completeness,
    ...(input.backfill ? { backfill: input.backfill } : {}),
  };
}
