import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';
import { REAL_PARTS, type RealPart } from './real-parts.js';

/**
 * Closes every run with the count of tests that drove a real PostgreSQL server or a real
 * Chromium (test/support/real-parts.ts), and fails the run when a test was skipped: a test left
 * with `.skip` or `.todo`, or one that skipped itself, is not a pass. The line it prints,
 * `real-part tests: N passed (postgres N, chromium N), N failed, N skipped`, is what the bare-machine test
 * (scripts/bare-machine-test.sh) compares with this machine's; vitest's JSON report carries the
 * same in each test's `meta.realParts`. A run filtered by test name (`-t`) skips the tests
 * it leaves out: there only the count is printed.
 */
export default class RealPartsReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const ran: Record<RealPart, number> = { postgres: 0, chromium: 0 };
    let realTests = 0;
    let realFailed = 0;
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta();
        const state = test.result().state;
        if (state === 'skipped' || state === 'pending') {
          skipped.push(label(test));
          continue;
        }
        if (!meta.realParts?.length) continue;
        if (state === 'failed') {
          realFailed += 1;
          continue;
        }
        realTests += 1;
        for (const part of meta.realParts) ran[part] += 1;
      }
    }
    const counts = REAL_PARTS.map((part) => `${part} ${ran[part]}`).join(', ');
    const out = [`real-part tests: ${realTests} passed (${counts}), ${realFailed} failed, ${skipped.length} skipped`];
    if (skipped.length > 0 && !this.filtered) {
      out.push(`FAILED: ${skipped.length} test(s) skipped; every test runs:`);
      for (const line of skipped.slice(0, 20)) out.push(`  ${line}`);
      process.exitCode = 1;
    }
    process.stderr.write(`${out.join('\n')}\n`);
  }
}

const label = (test: TestCase) => `${test.module.relativeModuleId}: ${test.fullName}`;
