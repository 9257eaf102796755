import { describe, expect, it } from 'vitest';
import { enableCompileCache } from '../../../src/cli/compile-cache.js';

describe('enableCompileCache', () => {
  it('asks Node for its compile cache where Node has one, and does nothing where it has not (Node 20)', () => {
    let asked = 0;
    expect(enableCompileCache({ enableCompileCache: () => asked++ })).toBe(true);
    expect(asked).toBe(1);
    expect(enableCompileCache({})).toBe(false);
  });

  it('goes on when the cache cannot be had', () => {
    const failing = {
      enableCompileCache: () => {
        throw new Error('EROFS: read-only file system');
      },
    };
    expect(enableCompileCache(failing)).toBe(true);
  });
});
