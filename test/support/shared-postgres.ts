import { afterAll, beforeAll, beforeEach, type TestContext } from 'vitest';
import { type PostgresServer, startPostgresServer } from './postgres-server.js';
import { needPart, type PartOrMissing, tryPart } from './real-parts.js';

export interface SharedPostgres {
  /** The file's server once beforeAll ran, or undefined when it did not start. */
  readonly server: PostgresServer | undefined;
  /**
   * The server, for a test that needs it: marks the test as a real-server test, and fails it
   * when the server did not start, with the reason.
   */
  use(ctx: TestContext): PostgresServer;
}

/**
 * One PostgreSQL server for a test file, started before the file's tests and stopped after them.
 * Call it at the top of the file, before the file's own beforeAll, which then finds `server` set.
 * A server that cannot start fails no hook: each test that needs it fails by name.
 * `everyTest`: every test of the file needs it (each is marked by a beforeEach); otherwise a test
 * says so with `use(ctx)`.
 */
export function sharedPostgres(options: { everyTest?: boolean } = {}): SharedPostgres {
  let started: PartOrMissing<PostgresServer> = { missing: 'not started yet' };
  beforeAll(async () => {
    started = await tryPart(startPostgresServer);
  }, 60_000);
  afterAll(() => {
    if ('part' in started) started.part.stop();
  });
  if (options.everyTest) beforeEach((ctx) => void needPart(ctx, 'postgres', started));
  return {
    get server() {
      return 'part' in started ? started.part : undefined;
    },
    use: (ctx) => needPart(ctx, 'postgres', started),
  };
}
