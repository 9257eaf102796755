import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutChanges, checkoutSnapshot } from '../../support/checkout-snapshot.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('checkout snapshot', () => {
  it('sees files added, rewritten or removed under the user paths, and nothing else', () => {
    root = mkdtempSync(join(tmpdir(), 'checkout-'));
    mkdirSync(join(root, 'out', 'conversations'), { recursive: true });
    writeFileSync(join(root, 'out', 'conversations', 'a.jsonl.gz'), 'a');
    mkdirSync(join(root, 'config'));
    writeFileSync(join(root, 'config', 'helpdesk-sync.yaml'), 'x: 1');
    const before = checkoutSnapshot(root);
    expect(checkoutChanges(before, checkoutSnapshot(root))).toEqual([]);

    writeFileSync(join(root, 'out', 'conversations', 'b.jsonl.gz'), 'b');
    writeFileSync(join(root, 'config', 'helpdesk-sync.yaml'), 'x: 22');
    utimesSync(join(root, 'config', 'helpdesk-sync.yaml'), 1, 1);
    mkdirSync(join(root, '.helpdesk-sync'));
    writeFileSync(join(root, 'config', 'other.yaml'), 'not watched');
    expect(checkoutChanges(before, checkoutSnapshot(root))).toEqual([
      '.helpdesk-sync',
      'config/helpdesk-sync.yaml',
      'out/conversations/b.jsonl.gz',
    ]);

    rmSync(join(root, 'out'), { recursive: true });
    expect(checkoutChanges(before, checkoutSnapshot(root))).toContain('out/conversations/a.jsonl.gz');
  });

  it("watches what README's demo and sandbox route leave: ./demo and ./helpdesk.duckdb", () => {
    root = mkdtempSync(join(tmpdir(), 'checkout-'));
    const before = checkoutSnapshot(root);
    mkdirSync(join(root, 'demo', 'out'), { recursive: true });
    writeFileSync(join(root, 'demo', 'out', 'x.jsonl.gz'), 'x');
    writeFileSync(join(root, 'helpdesk.duckdb'), 'db');
    expect(checkoutChanges(before, checkoutSnapshot(root))).toEqual([
      'demo',
      'demo/out',
      'demo/out/x.jsonl.gz',
      'helpdesk.duckdb',
    ]);
  });
});
