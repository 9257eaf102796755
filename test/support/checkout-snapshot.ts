import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What a user's own run leaves in a checkout (README's quick start: `npm run demo`'s
 * ./demo, the sandbox route's ./out, ./.helpdesk-sync and ./helpdesk.duckdb; a local
 * config). Tests must neither read these nor leave them behind: every run a test
 * makes works in a temporary directory.
 */
export const USER_PATHS = ['out', '.helpdesk-sync', 'demo', 'helpdesk.duckdb', 'config/helpdesk-sync.yaml'] as const;

/** Every file and directory under the user paths of `root`, with its size and modification time. */
export function checkoutSnapshot(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    entries.set(relative(root, path), stat.isDirectory() ? 'dir' : `${stat.size}:${stat.mtimeMs}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const path of USER_PATHS) visit(join(root, path));
  return entries;
}

/** Paths added, removed or rewritten between two snapshots, sorted. */
export function checkoutChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed = new Set<string>();
  for (const [path, value] of after) if (before.get(path) !== value) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}
