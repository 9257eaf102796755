import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule, Vitest } from 'vitest/node';
import RealPartsReporter from '../../support/real-parts-reporter.js';

/** A module of tests as the reporter reads them: each a name, its end state and the real parts it drove. */
function moduleOf(tests: Array<{ name: string; state: string; realParts?: string[] }>): TestModule {
  const module = { relativeModuleId: 'test/integration/x.test.ts' } as unknown as TestModule;
  const cases = tests.map((t) => ({
    module,
    fullName: t.name,
    meta: () => (t.realParts ? { realParts: t.realParts } : {}),
    result: () => ({ state: t.state }),
  }));
  Object.assign(module, { children: { allTests: () => cases.values() } });
  return module;
}

/** What the reporter prints and the exit code it sets at the end of a run (filtered by `-t` or not). */
function report(modules: TestModule[], filtered = false): { text: string; exitCode: typeof process.exitCode } {
  const reporter = new RealPartsReporter();
  reporter.onInit({ config: { testNamePattern: filtered ? /x/ : undefined } } as unknown as Vitest);
  let text = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    reporter.onTestRunEnd(modules);
    return { text, exitCode: process.exitCode };
  } finally {
    process.exitCode = before;
    vi.restoreAllMocks();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('the real-parts reporter', () => {
  it('counts the tests that drove a real PostgreSQL server or Chromium, by part', () => {
    const { text, exitCode } = report([
      moduleOf([
        { name: 'loads', state: 'passed', realParts: ['postgres'] },
        { name: 'draws', state: 'passed', realParts: ['chromium', 'postgres'] },
        { name: 'broke', state: 'failed', realParts: ['postgres'] },
        { name: 'plain', state: 'passed' },
      ]),
    ]);
    expect(text).toBe('real-part tests: 2 passed (postgres 2, chromium 1), 1 failed, 0 skipped\n');
    expect(exitCode).toBeUndefined();
  });

  it('fails the run when any test was skipped, naming it', () => {
    const { text, exitCode } = report([
      moduleOf([
        { name: 'ran', state: 'passed' },
        { name: 'left behind', state: 'skipped' },
      ]),
    ]);
    expect(text).toContain('1 skipped');
    expect(text).toContain('FAILED: 1 test(s) skipped; every test runs:\n  test/integration/x.test.ts: left behind');
    expect(exitCode).toBe(1);
  });

  it('a run filtered by name skips what it leaves out: only the count is printed', () => {
    const { text, exitCode } = report([moduleOf([{ name: 'left out', state: 'skipped' }])], true);
    expect(text).not.toContain('FAILED');
    expect(exitCode).toBeUndefined();
  });
});
