import type { EntryRef } from './issue-path.js';

/** One valid entry of a push file (written there, or expanded from a holiday source), and where it came from. */
export interface ValidatedEntry<T> {
  ref: EntryRef;
  entry: T;
  /** Older keys of the same object: a mapping under one of them moves to `entry.key`. */
  aliases?: string[];
}
