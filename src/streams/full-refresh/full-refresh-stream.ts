import type { ApiObject } from '../../api/index.js';
import type { CatalogStream } from '../../catalog/catalog.js';
import { inboxIds } from '../inbox-ids.js';
import { skipOn403 } from '../skip-when-forbidden.js';
import type { Emit, Stream, StreamContext } from '../types.js';
import { perInboxItems } from './per-inbox-items.js';
import { RefreshDiff } from './refresh-diff.js';

/** A stream declared with a `list` or `per-inbox` read: one table, keyed by one column. */
export type FullRefreshDefinition = Extract<CatalogStream, { read: { kind: 'list' | 'per-inbox' } }>;

/** The whole listing of a `list` read: every item of its endpoint (a `single` resource is one). */
async function* wholeList(definition: FullRefreshDefinition, ctx: StreamContext): AsyncIterable<ApiObject> {
  ctx.metrics?.remaining(1);
  yield* ctx.api.read(definition.read.endpoint, { signal: ctx.signal });
}

/** The listing of a `per-inbox` read: its endpoint under every inbox GET /inboxes lists. */
async function* perInbox(definition: FullRefreshDefinition, ctx: StreamContext): AsyncIterable<ApiObject> {
  const ids = await inboxIds(ctx);
  if (ids === undefined) return;
  yield* perInboxItems(ctx.api, definition.read.endpoint, ids, {
    signal: ctx.signal,
    onInbox: (index) => ctx.metrics?.remaining(ids.length - index),
    onGone: (inboxId) =>
      ctx.log.info({ stream: definition.name, inbox_id: inboxId }, `inbox gone while listing its ${definition.name}`),
  });
}

/**
 * A stream read whole every run (the dimension lists; tags, per inbox): small
 * lists, so every run reads all of it, emits what changed and tombstones what
 * disappeared (docs/streams.md). A 403 skips the stream when its declaration
 * says so; any other error fails the run.
 */
export function fullRefreshStream(definition: FullRefreshDefinition): Stream {
  const { name } = definition;
  const [table] = definition.tables;
  const listing = definition.read.kind === 'per-inbox' ? perInbox : wholeList;
  return {
    name,
    async *run(ctx: StreamContext): AsyncIterable<Emit> {
      const diff = new RefreshDiff(table.name, definition.state.scope, ctx.state, ctx.fullRefresh);
      try {
        for await (const record of listing(definition, ctx)) {
          if (ctx.signal.aborted) return;
          const emit = diff.observe(record);
          if (emit) yield emit;
        }
      } catch (error) {
        if (ctx.signal.aborted) return;
        const skip = skipOn403(definition, error);
        if (!skip) throw error;
        ctx.log.warn({ stream: name, code: skip.code }, skip.message);
        yield { kind: 'warning', ...skip };
        return;
      }
      ctx.metrics?.remaining(0);
      if (ctx.signal.aborted) return;
      yield* diff.tombstones();
      // Committed first: the figure counts what the state holds after this run.
      yield { kind: 'checkpoint' };
      if (!ctx.signal.aborted) yield diff.completeness(name);
    },
  };
}
