import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';

/** One shard of the accounts: this process runs shard `index` (from 0) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** `--shard i/n` (0 ≤ i < n, as Kubernetes numbers an Indexed Job's pods: JOB_COMPLETION_INDEX). */
export function parseShard(text: string): Shard {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) {
    throw new UsageError(`--shard: expected i/n with 0 ≤ i < n (e.g. 0/3), got "${text}"`);
  }
  return { index, count };
}

/**
 * The shard an account belongs to, of `count`: from its name alone (the first
 * four bytes of its sha256), so the assignment is the same in every process and
 * on every day, and adding or removing an account moves no other account.
 */
export function shardOf(account: string, count: number): number {
  return createHash('sha256').update(account).digest().readUInt32BE(0) % count;
}

/** The accounts of `shard`, in the config's order. */
export function accountsOfShard<T extends { account?: { name: string } }>(accounts: readonly T[], shard: Shard): T[] {
  return accounts.filter((a) => shardOf(a.account?.name ?? '', shard.count) === shard.index);
}
