import type { DuckDBConnection, DuckDBPendingResultState, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';

/** A connection whose statements DuckDB executes on this (the JavaScript) thread. */
export interface DuckdbSession {
  /** Runs the statements of `sql` in order; `values` bind the last one's parameters. */
  run(sql: string, values?: DuckDBValue[]): Promise<void>;
  /** Runs the statements of `sql` in order and reads the last one's rows. */
  read(sql: string, values?: DuckDBValue[]): Promise<DuckDBResultReader>;
}

/**
 * `DuckDBPendingResultState.RESULT_READY`, written out: importing the enum's value
 * would load the driver, an optional dependency, with this module.
 */
const RESULT_READY: DuckDBPendingResultState = 0;

/** What the driver puts before DuckDB's own message: removed, so errors read as DuckDB wrote them. */
const DRIVER_PREFIX = /^(?:Failure running pending result task|Failed to extract statements): /;

function asDuckdbError(error: unknown): unknown {
  if (!(error instanceof Error) || !DRIVER_PREFIX.test(error.message)) return error;
  return Object.assign(new Error(error.message.replace(DRIVER_PREFIX, '')), { cause: error });
}

/** Lets timers, I/O and signal handlers run between two of DuckDB's tasks. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The driver's `run` hands each statement to one of libuv's worker threads (four
 * by default), whichever is free, and DuckDB's allocator (jemalloc) keeps an
 * arena per thread: memory a statement frees on one thread stays with that
 * thread's arena while the next statement allocates afresh on another. A load
 * of a million rows peaked 40–70 MB higher that way, and by more the more the
 * statements moved between threads (the load benchmark, docs/performance.md). Here each
 * statement is started, then its tasks are run one at a time on this thread
 * (`threads` = 1 leaves DuckDB no worker of its own), yielding to the event loop
 * between tasks, so one arena serves the whole load and reuses what it freed.
 * Only preparing a statement and fetching its finished result (no rows are
 * processed there) still go through the driver's workers.
 */
export function duckdbSession(db: DuckDBConnection): DuckdbSession {
  async function execute(sql: string, values: DuckDBValue[] | undefined): Promise<DuckDBResultReader> {
    let reader: DuckDBResultReader | undefined;
    try {
      const statements = await db.extractStatements(sql);
      for (let i = 0; i < statements.count; i++) {
        const prepared = await statements.prepare(i);
        try {
          if (values && i === statements.count - 1) prepared.bind(values);
          const pending = prepared.start();
          while (pending.runTask() !== RESULT_READY) await yieldToEventLoop();
          reader = await pending.readAll();
        } finally {
          prepared.destroySync();
        }
      }
    } catch (error) {
      throw asDuckdbError(error);
    }
    // extractStatements fails on text with no statement, so there was a last one.
    return reader!;
  }
  return {
    async run(sql, values) {
      await execute(sql, values);
    },
    read: execute,
  };
}
