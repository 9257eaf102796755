import { type ApiClient, apiClientFromConfig } from '../api/index.js';
import { inboxes } from '../catalog/streams/inboxes.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import type { Logger } from '../log.js';
import { createSink } from '../output/sinks/create-sink.js';
import { openSqliteScratchSpace, type SqliteScratchSpace } from '../state/sqlite-scratch-space.js';
import {
  committedDataFiles,
  committedRejectedFiles,
  lastFinishedRunStart,
  scopesWithPrefix,
} from '../state/state-admin.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { createStateReader } from '../state/state-reader.js';
import { committedCount } from '../streams/committed.js';
import { readBackfill } from '../streams/conversations/backfill-state.js';
import { memoizeReads } from '../streams/memoize-reads.js';
import { reportScope, SCOPES } from '../streams/scopes.js';
import { readOutputKeys } from './output-keys.js';
import { readRejectedKeys } from './rejected-keys.js';
import { verifyConversations } from './verify-conversations.js';
import { describeCost, estimateCost } from './verify-cost.js';
import { listingRequests, verifyDimensions } from './verify-dimensions.js';
import { verifyOutput } from './verify-output.js';
import { verifySample } from './verify-sample.js';
import type { SubjectCounts, VerifyContext, VerifyReport } from './verify-types.js';

export interface VerifyOptions {
  /** Also read the committed files back and compare them with the state (no API cost). */
  output: boolean;
  /** Conversations compared field by field with their latest rows (needs `output`); one thread request each. */
  sample: number;
  logger: Logger;
  /** Told the cost before any request is made. */
  onCost?: (text: string) => void;
  clock?: Pick<Clock, 'now'>;
}

/** Counts of the same subject from several checks, in one line each. */
function mergeCounts(all: SubjectCounts[]): SubjectCounts[] {
  const merged = new Map<string, SubjectCounts>();
  for (const c of all) merged.set(c.subject, { ...merged.get(c.subject), ...c });
  return [...merged.values()];
}

/**
 * `helpdesk-sync verify` (docs/operations.md, "Verify"): compares the state,
 * and with `output` the committed files, against a fresh listing. Reads only:
 * the state is opened as `state show` opens it, nothing is written anywhere.
 */
export async function verifyJob(config: Config, options: VerifyOptions): Promise<VerifyReport> {
  const state = await openStateFromConfig(stateSettingsOf(config), { logger: options.logger });
  let client: ApiClient | undefined;
  let scratch: SqliteScratchSpace | undefined;
  try {
    const reader = createStateReader(state.db);
    const files = options.output ? committedDataFiles(state.db) : undefined;
    const rejectedFiles = options.output ? committedRejectedFiles(state.db) : [];
    const cost = estimateCost({
      heldConversations: committedCount(reader, SCOPES.conversations),
      lists: listingRequests(committedCount(reader, inboxes.state.scope)),
      sample: options.sample,
      files: files && [...files, ...rejectedFiles],
    });
    options.onCost?.(describeCost(cost, config.source.rate_limit.requests_per_minute));
    client = apiClientFromConfig(config.source, options.logger);
    scratch = openSqliteScratchSpace('');
    const lastStart = lastFinishedRunStart(state.db);
    const ctx: VerifyContext = {
      // The inbox list is read once: by the inboxes listing, then for the tags of each inbox.
      api: memoizeReads(client.api),
      state: reader,
      conversations: { ...config.conversations, endpoint: config.source.conversations_endpoint },
      scratch,
      clock: options.clock ?? systemClock,
      lastSyncStartMs: lastStart === undefined ? undefined : Date.parse(lastStart),
      backfillPending: readBackfill(reader) !== undefined,
    };
    const conversations = await verifyConversations(ctx, options.output ? options.sample : 0);
    const dimensions = await verifyDimensions(ctx);
    const counts = [conversations.counts, ...dimensions.counts];
    const tallies = [conversations.tally, ...dimensions.tallies];
    let requests = conversations.requests + dimensions.requests;
    let sampled = 0;
    if (files) {
      const ids = new Set(conversations.sample.map((c) => String(c.item.id)));
      const keep = (table: string, row: Record<string, unknown>) =>
        table === 'conversations' ? ids.has(String(row.id)) : ids.has(String(row.conversation_id));
      const sink = createSink(config.destination, options.logger);
      const keys = await readOutputKeys(sink, files, scratch, keep);
      const rejected = await readRejectedKeys(sink, rejectedFiles);
      const output = verifyOutput(ctx, keys, scopesWithPrefix(state.db, reportScope('')), rejected);
      counts.push(...output.counts);
      tallies.push(...output.tallies);
      const sample = await verifySample(ctx, conversations.sample, keys.kept);
      tallies.push(sample.tally);
      requests += sample.requests;
      sampled = sample.compared;
    }
    return { counts: mergeCounts(counts), findings: tallies.flatMap((t) => t.findings()), sampled, requests };
  } finally {
    client?.close();
    scratch?.close();
    await state.close();
  }
}
