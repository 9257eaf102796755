import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Runs in a child process: V8 flags are process-wide and must not leak into the test runner.
function flagsAfterTuning(env: NodeJS.ProcessEnv): { tuned: boolean; stderr: string } {
  const script = `
    import { tuneGarbageCollector } from './src/cli/gc-tuning.ts';
    process.stdout.write(String(tuneGarbageCollector()));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { tuned: result.stdout === 'true', stderr: result.stderr };
}

describe('tuneGarbageCollector', () => {
  it('sets V8 flags this Node accepts, unless turned off', () => {
    const on = flagsAfterTuning({ HELPDESK_SYNC_GC_TUNING: '' });
    expect(on.tuned).toBe(true);
    // V8 warns on stderr about a flag it does not know; there must be no such warning.
    expect(on.stderr).not.toMatch(/flag/i);
    expect(flagsAfterTuning({ HELPDESK_SYNC_GC_TUNING: 'off' }).tuned).toBe(false);
  });
});

describe('withV8Collector', () => {
  it("runs the work under V8's own flags, which this Node accepts, and returns its result", () => {
    const script = `
      import { tuneGarbageCollector, withV8Collector } from './src/cli/gc-tuning.ts';
      tuneGarbageCollector();
      const result = await withV8Collector(async () => 'loaded');
      process.stdout.write(result);
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, HELPDESK_SYNC_GC_TUNING: '' },
      encoding: 'utf8',
    });
    expect(result.stdout).toBe('loaded');
    expect(result.stderr).not.toMatch(/flag/i);
  });
});
