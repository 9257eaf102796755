import type { ApiObject } from '../../api/index.js';
import type { CatalogStream } from '../../catalog/catalog.js';
import { isUnreadable } from '../api-error-status.js';
import { inboxIds } from '../inbox-ids.js';
import { skipOn403 } from '../skip-when-forbidden.js';
import type { Emit, Stream, StreamContext } from '../types.js';
import { unreadableList } from '../unreadable-list.js';
import { perInboxItems } from './per-inbox-items.js';
import { RefreshDiff } from './refresh-diff.js';

/** A stream declared with a `list` or `per-inbox` read: one table, keyed by one column. */
export type FullRefreshDefinition = Extract<CatalogStream, { read: { kind: 'list' | 'per-inbox' } }>;

/**
 * One run's listing of a full-refresh stream: its items, what an unreadable
 * answer that ends it is called, and the warnings of parts skipped on the way
 * (an inbox whose list stayed unreadable), which make it partial.
 */
interface Listing {
  items: AsyncIterable<ApiObject>;
  /** What a body that stayed unreadable and ended the listing was: `its list`, `the inbox list`. */
  what: string;
  skipped: Emit[];
}

/** The whole listing of a `list` read: every item of its endpoint (a `single` resource is one). */
function wholeList(definition: FullRefreshDefinition, ctx: StreamContext): Listing {
  ctx.metrics?.remaining(1);
  return { items: ctx.api.read(definition.read.endpoint, { signal: ctx.signal }), what: 'its list', skipped: [] };
}

/**
 * The listing of a `per-inbox` read: its endpoint under every inbox GET /inboxes
 * lists. An inbox whose list stayed unreadable is skipped with a warning; its
 * items are not seen, so the listing is partial.
 */
function perInbox(definition: FullRefreshDefinition, ctx: StreamContext): Listing {
  const { name } = definition;
  const skipped: Emit[] = [];
  async function* items(): AsyncIterable<ApiObject> {
    const ids = await inboxIds(ctx);
    if (ids === undefined) return;
    yield* perInboxItems(ctx.api, definition.read.endpoint, ids, {
      signal: ctx.signal,
      onInbox: (index) => ctx.metrics?.remaining(ids.length - index),
      onGone: (inboxId) => ctx.log.info({ stream: name, inbox_id: inboxId }, `inbox gone while listing its ${name}`),
      onUnreadable: (inboxId, error) =>
        skipped.push(unreadableList(ctx, name, `the ${name} of inbox ${inboxId}`, error)),
    });
  }
  return { items: items(), what: 'the inbox list', skipped };
}

/**
 * A stream read whole every run (the dimension lists; tags, per inbox): small
 * lists, so every run reads all of it, emits what changed and tombstones what
 * disappeared (docs/streams.md). A 403 skips the stream when its declaration
 * says so; a body that stayed unreadable skips what it belongs to for this run
 * (the list, or one inbox's part of it), tombstoning nothing; any other error
 * is thrown, for the run to judge (src/sync/stream-failure.ts: one endpoint's
 * answer fails this stream alone, a 401 or an unreachable host the run).
 */
export function fullRefreshStream(definition: FullRefreshDefinition): Stream {
  const { name } = definition;
  const [table] = definition.tables;
  return {
    name,
    async *run(ctx: StreamContext): AsyncIterable<Emit> {
      const diff = new RefreshDiff(table.name, definition.state.scope, ctx.state, ctx.fullRefresh);
      const listing = definition.read.kind === 'per-inbox' ? perInbox(definition, ctx) : wholeList(definition, ctx);
      try {
        for await (const record of listing.items) {
          if (ctx.signal.aborted) return;
          yield* listing.skipped.splice(0);
          const emit = diff.observe(record);
          if (emit) yield emit;
        }
      } catch (error) {
        if (ctx.signal.aborted) return;
        if (isUnreadable(error)) {
          yield unreadableList(ctx, name, listing.what, error);
          return;
        }
        const skip = skipOn403(definition, error);
        if (!skip) throw error;
        ctx.log.warn({ stream: name, code: skip.code }, skip.message);
        yield { kind: 'warning', ...skip };
        return;
      }
      const partial = listing.skipped.length > 0;
      yield* listing.skipped.splice(0);
      ctx.metrics?.remaining(0);
      // A part not read proves nothing gone: no tombstone, and no figure, after a partial listing.
      if (ctx.signal.aborted || partial) return;
      yield* diff.tombstones();
      // Committed first: the figure counts what the state holds after this run.
      yield { kind: 'checkpoint' };
      if (!ctx.signal.aborted) yield diff.completeness(name);
    },
  };
}
