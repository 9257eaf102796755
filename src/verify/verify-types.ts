import type { HelpdeskApi } from '../api/index.js';
import type { Clock } from '../clock.js';
import type { StateReader } from '../kv-state.js';
import type { ScratchSpace } from '../scratch-space.js';
import type { ScanStreamSettings } from '../streams/stream-settings.js';

/**
 * One difference `helpdesk-sync verify` found between the API, the state and
 * (with `--output`) the committed files. Explained ones have a known, harmless
 * cause (changed since the last sync, past a search cap…); any unexplained one
 * makes verify exit 1.
 */
export interface Finding {
  /** The stream or table it is about. */
  subject: string;
  /** What differs, e.g. `missing_from_output`, `changed_behind_state`. */
  kind: string;
  count: number;
  /** A few of the keys, for an operator to look at. */
  examples: string[];
  explained: boolean;
  /** Why, in words. */
  note: string;
}

/** Per stream or table: what the API lists, what the state holds, what the output holds live. */
export interface SubjectCounts {
  subject: string;
  /** What the API says exists (meta.total or the list's length); absent when not read. */
  api?: number;
  state: number;
  /** Live rows in the committed files (latest per key, tombstones applied); with --output. */
  output?: number;
}

export interface VerifyReport {
  counts: SubjectCounts[];
  findings: Finding[];
  /** Conversations compared field by field with their latest rows (--sample). */
  sampled: number;
  /** Requests made. */
  requests: number;
}

/** What the checks share: the API, the state as committed, a scratch space for key sets that grow with the account. */
export interface VerifyContext {
  api: HelpdeskApi;
  state: StateReader;
  /** The conversation scan's settings, as sync reads them (view-only fields, signed URLs, the endpoint). */
  conversations: ScanStreamSettings['conversations'];
  scratch: ScratchSpace;
  clock: Pick<Clock, 'now'>;
  /** Start of the latest finished sync, epoch ms: changes after it are the next sync's. */
  lastSyncStartMs?: number;
  /** A recent-first backfill is pending: conversations it has not reached are not in state yet. */
  backfillPending: boolean;
}

/** At most this many keys are kept as examples of a finding. */
export const EXAMPLES = 5;

/** Counts keys into a finding as they come, keeping the first few as examples. */
export class FindingTally {
  readonly #found = new Map<string, Finding>();

  constructor(private readonly subject: string) {}

  add(kind: string, key: string, explained: boolean, note: string): void {
    let finding = this.#found.get(kind);
    if (!finding) {
      finding = { subject: this.subject, kind, count: 0, examples: [], explained, note };
      this.#found.set(kind, finding);
    }
    finding.count += 1;
    if (finding.examples.length < EXAMPLES) finding.examples.push(key);
  }

  /** A finding counted as a whole (a shortfall of a listing, with no keys to name). */
  addCount(kind: string, count: number, explained: boolean, note: string): void {
    if (count > 0) this.#found.set(kind, { subject: this.subject, kind, count, examples: [], explained, note });
  }

  findings(): Finding[] {
    return [...this.#found.values()];
  }
}
