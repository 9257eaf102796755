import { isNotFound, isUnreadable } from './api-error-status.js';
import { inboxIdsFor } from './inbox-ids.js';
import { RefreshDiff } from './refresh-diff.js';
import { SCOPES } from './scopes.js';
import type { Emit, Stream, StreamContext } from './types.js';
import { unreadableList } from './unreadable-list.js';

/**
 * Tags, listed per inbox (GET /inboxes/{id}/tags, the simple paginator: see
 * Limits), each row carrying the inbox_id it was listed under. Full refresh:
 * emit changed, tombstone what no inbox lists any more. The primary key is the
 * tag id alone, so a tag listed by several inboxes is one row, under the first
 * inbox (in GET /inboxes order) that lists it.
 */
export const tagsStream: Stream = {
  name: 'tags',
  tables: ['tags'],
  after: ['inboxes'],
  async *run(ctx: StreamContext): AsyncIterable<Emit> {
    const diff = new RefreshDiff('tags', SCOPES.tags, ctx.state, ctx.fullRefresh);
    const inboxes = await inboxIdsFor(ctx, 'tags');
    if (inboxes.skip) yield inboxes.skip;
    const ids = inboxes.ids;
    if (ids === undefined) return;
    // An inbox whose tags could not be read: its tags are not seen, so none may be tombstoned this run.
    let partial = false;
    for (const [index, inboxId] of ids.entries()) {
      ctx.metrics?.remaining(ids.length - index);
      try {
        for await (const tag of ctx.api.listInboxTags(inboxId, { signal: ctx.signal })) {
          if (ctx.signal.aborted) return;
          const emit = diff.observe({ ...tag, inbox_id: inboxId });
          if (emit) yield emit;
        }
      } catch (error) {
        if (ctx.signal.aborted) return;
        if (isUnreadable(error)) {
          partial = true;
          yield unreadableList(ctx, 'tags', `the tags of inbox ${inboxId}`, error);
          continue;
        }
        // The inbox vanished after it was listed: it holds no tags any more (a deletion signal, docs/streams.md).
        if (!isNotFound(error)) throw error;
        ctx.log.info({ stream: 'tags', inbox_id: inboxId }, 'inbox gone while listing its tags');
      }
    }
    ctx.metrics?.remaining(0);
    if (ctx.signal.aborted || partial) return;
    yield* diff.tombstones();
    // Committed first: the figure counts what the state holds after this run.
    yield { kind: 'checkpoint' };
    if (!ctx.signal.aborted) yield diff.completeness('tags');
  },
};
