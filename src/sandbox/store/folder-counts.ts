import { FLAG_REMOVED, FLAG_SPAM, FLAG_TRASHED } from '../seed/conversation-table.js';
import type { SandboxStore } from './sandbox-store.js';

export interface FolderCounts {
  active: number;
  pending: number;
  closed: number;
  spam: number;
  trash: number;
}

/**
 * Per-inbox folder counts from the compact table (one pass): trashed ones count
 * only in trash, spam ones only in spam, the rest by status.
 */
export function folderCounts(store: SandboxStore, inboxIds: string[]): Map<string, FolderCounts> {
  const { table, world } = store;
  const byIndex = new Map<number, FolderCounts>();
  const result = new Map<string, FolderCounts>();
  for (const id of inboxIds) {
    const counts = { active: 0, pending: 0, closed: 0, spam: 0, trash: 0 };
    result.set(id, counts);
    byIndex.set(
      world.inboxes.findIndex((b) => b.id === id),
      counts,
    );
  }
  const keys = ['active', 'pending', 'closed'] as const;
  for (let i = 0; i < table.count; i++) {
    const counts = byIndex.get(table.inbox[i]!);
    const flags = table.flags[i]!;
    if (!counts || flags & FLAG_REMOVED) continue;
    if (flags & FLAG_TRASHED) counts.trash++;
    else if (flags & FLAG_SPAM) counts.spam++;
    else counts[keys[table.status[i]!]!]++;
  }
  return result;
}
