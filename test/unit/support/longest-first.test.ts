import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import LongestFirst from '../../support/longest-first-sequencer.js';

const ROOT = '/repo';
const spec = (project: string, file: string) =>
  ({
    project: { name: project, config: { sequence: { groupOrder: 0 }, isolate: false } },
    moduleId: `${ROOT}/${file}`,
  }) as unknown as TestSpecification;

function sequencer(cached: Record<string, { failed: boolean; duration: number }> = {}) {
  const ctx = {
    config: { root: ROOT },
    cache: { getFileTestResults: (key: string) => cached[key], getFileStats: () => undefined },
  };
  return new LongestFirst(ctx as never);
}

const names = (files: TestSpecification[]) =>
  files.map((f) => `${f.project.name}:${f.moduleId.slice(ROOT.length + 1)}`);

describe('LongestFirst', () => {
  const files = [
    spec('unit', 'test/unit/a.test.ts'),
    spec('integration', 'test/integration/demo.test.ts'),
    spec('integration', 'test/integration/sync/sync-faults.test.ts'),
    spec('integration', 'test/integration/load/load-crash-and-lock.test.ts'),
    spec('integration', 'test/integration/zz.test.ts'),
  ];

  it('on a clean clone starts the known slow files first, each project as vitest groups them', async () => {
    expect(names(await sequencer().sort(files))).toEqual([
      'integration:test/integration/load/load-crash-and-lock.test.ts',
      'integration:test/integration/sync/sync-faults.test.ts',
      'integration:test/integration/demo.test.ts',
      'integration:test/integration/zz.test.ts',
      'unit:test/unit/a.test.ts',
    ]);
  });

  it("keeps vitest's own order where it cached durations of an earlier run", async () => {
    const cached = Object.fromEntries(
      names(files).map((key, i) => [key, { failed: false, duration: key.includes('zz') ? 999 : i }]),
    );
    expect(names(await sequencer(cached).sort(files))[0]).toBe('integration:test/integration/zz.test.ts');
  });
});
