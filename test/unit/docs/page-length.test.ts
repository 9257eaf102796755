import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_FILES, ROOT } from './doc-files.js';

/**
 * A page answers its reader's tasks; past 600 lines it has become a diary or needs splitting
 * by reader. Measured figures live in docs/performance.md, the latest of each only; the history
 * of what was measured and tried lives in the commit log.
 */
const MAX_LINES = 600;

describe('page length', () => {
  it.each(DOC_FILES)(`%s has at most ${MAX_LINES} lines`, (file) => {
    const lines = readFileSync(join(ROOT, file), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines, `${file}: ${lines} lines; split it by reader or move history to the commit log`).toBeLessThanOrEqual(
      MAX_LINES,
    );
  });
});
