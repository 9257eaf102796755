import { describe, expect, it } from 'vitest';
import { dataFileKey, manifestKey, rejectedFileKey, withPrefix } from '../../../src/output/object-keys.js';
import { isRunId, newRunId } from '../../../src/output/run-id.js';

describe('run ids and keys', () => {
  it('formats run ids that sort by start time', () => {
    const seq = [0, 1, 2, 3, 35, 10];
    let i = 0;
    const id = newRunId(new Date('2026-11-22T10:15:00.789Z'), () => seq[i++]!);
    expect(id).toBe('20261122T101500Z-abcd9k');
    expect(isRunId(id)).toBe(true);
    const earlier = newRunId(new Date('2026-11-22T09:59:59Z'));
    const later = newRunId(new Date('2026-11-22T10:00:00Z'));
    expect(earlier < later).toBe(true);
    expect(isRunId(later)).toBe(true);
  });

  it('lays keys out as docs/output.md says', () => {
    const started = new Date('2026-11-22T23:59:59Z');
    const run = '20261122T235959Z-abc123';
    expect(dataFileKey('conversations', started, run, 7)).toBe(
      'conversations/dt=2026-11-22/20261122T235959Z-abc123-0007.jsonl.gz',
    );
    expect(rejectedFileKey('tags', started, run, 12345)).toBe(
      '_rejected/tags/dt=2026-11-22/20261122T235959Z-abc123-12345.jsonl.gz',
    );
    expect(manifestKey(run)).toBe('_manifests/20261122T235959Z-abc123.json');
    expect(withPrefix('/helpdesk/', 'a/b')).toBe('helpdesk/a/b');
    expect(withPrefix('', 'a/b')).toBe('a/b');
  });
});
