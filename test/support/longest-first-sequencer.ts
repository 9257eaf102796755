import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each of the slowest integration files took on the development machine (2 cores,
 * the whole suite). Only the order of files depends on them: a stale figure costs a little
 * wall time, never a check.
 */
const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/integration/load/load-crash-and-lock.test.ts': 128,
  'test/integration/resilience/kill-points.test.ts': 74,
  'test/integration/push/workflow-runs.test.ts': 46,
  'test/integration/sync/sync-faults.test.ts': 45,
  'test/integration/state/s3-state-kills.test.ts': 43,
  'test/integration/load/schema-evolution.test.ts': 42,
  'test/integration/resilience/recent-first-kill.test.ts': 41,
  'test/integration/readme-path.test.ts': 40,
  'test/integration/output/crash.test.ts': 40,
  'test/integration/sync/sync-cli.test.ts': 38,
  'test/integration/state/sync-s3-state.test.ts': 37,
  'test/integration/sync/sync-quirks.test.ts': 37,
  'test/integration/state/daemon-s3-state.test.ts': 33,
  'test/integration/sync/sync-rough-answers.test.ts': 32,
  'test/integration/state/state-lock-cli.test.ts': 28,
  'test/integration/load/load-pipelines.test.ts': 27,
  'test/integration/resilience/path-errors.test.ts': 24,
  'test/integration/resilience/s3-outage.test.ts': 23,
  'test/integration/terminal/check-terminal.test.ts': 22,
  'test/integration/sync/sync-crash-resume.test.ts': 22,
  'test/integration/load/load-failures.test.ts': 21,
  'test/integration/resilience/disk-faults.test.ts': 21,
};

/**
 * Longest files first, so the last minute of a run is short files on every core rather than
 * one long file on one (a clean clone ran `sync/sync-faults`, 71 s, last). Vitest orders by
 * the durations it cached on an earlier run; a clean clone has none, so there the figures
 * above order the files (the others after them, in vitest's order).
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
    if (sorted.some((f) => this.ctx.cache.getFileTestResults(key(f)) !== undefined)) return sorted;
    const seconds = (f: TestSpecification) => SLOW_FILES[relative(this.ctx.config.root, f.moduleId)] ?? 0;
    const projectAt = new Map<string, number>();
    sorted.forEach((f, i) => {
      if (!projectAt.has(f.project.name)) projectAt.set(f.project.name, i);
    });
    const at = new Map(sorted.map((f, i) => [f, i]));
    return [...sorted].sort(
      (a, b) =>
        projectAt.get(a.project.name)! - projectAt.get(b.project.name)! ||
        seconds(b) - seconds(a) ||
        at.get(a)! - at.get(b)!,
    );
  }
}
