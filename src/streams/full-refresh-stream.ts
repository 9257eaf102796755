import type { ApiObject } from '../api/index.js';
import type { StreamName } from '../config/schema.js';
import type { TableName } from '../output/tables.js';
import { isUnreadable } from './api-error-status.js';
import { RefreshDiff } from './refresh-diff.js';
import type { Emit, Stream, StreamContext } from './types.js';
import { unreadableList } from './unreadable-list.js';

export interface FullRefreshStreamOptions {
  name: StreamName;
  table: TableName;
  scope: string;
  /** The whole listing: an async iterable (paginated) or a promise of an array (plain array endpoints). */
  list(ctx: StreamContext): AsyncIterable<ApiObject> | Promise<ApiObject[]>;
  /**
   * Turns an error of the listing into a warning that skips the stream (the run
   * goes on); return undefined to fail the run with it.
   */
  skipOn?(error: unknown): { code: string; message: string } | undefined;
}

async function* items(source: AsyncIterable<ApiObject> | Promise<ApiObject[]>): AsyncIterable<ApiObject> {
  if (Symbol.asyncIterator in source) yield* source;
  else yield* await source;
}

/**
 * A dimension stream read whole every run (inboxes, users, business hours,
 * holidays): small lists, so every run reads all of it, emits what changed and
 * tombstones what disappeared (docs/streams.md).
 */
export function fullRefreshStream(options: FullRefreshStreamOptions): Stream {
  return {
    name: options.name,
    tables: [options.table],
    async *run(ctx: StreamContext): AsyncIterable<Emit> {
      const diff = new RefreshDiff(options.table, options.scope, ctx.state, ctx.fullRefresh);
      ctx.metrics?.remaining(1);
      try {
        for await (const record of items(options.list(ctx))) {
          if (ctx.signal.aborted) return;
          const emit = diff.observe(record);
          if (emit) yield emit;
        }
      } catch (error) {
        if (ctx.signal.aborted) return;
        if (isUnreadable(error)) {
          yield unreadableList(ctx, options.name, 'its list', error);
          return;
        }
        const skip = options.skipOn?.(error);
        if (!skip) throw error;
        ctx.log.warn({ stream: options.name, code: skip.code }, skip.message);
        yield { kind: 'warning', ...skip };
        return;
      }
      ctx.metrics?.remaining(0);
      if (ctx.signal.aborted) return;
      yield* diff.tombstones();
      // Committed first: the figure counts what the state holds after this run.
      yield { kind: 'checkpoint' };
      if (!ctx.signal.aborted) yield diff.completeness(options.name);
    },
  };
}
