import type { SyncSummary } from '../sync/sync-types.js';

/** `partial`: a sync that committed what it could while some part failed (its summary's `failed_streams`, or another account). */
export type RunOutcome = 'succeeded' | 'partial' | 'failed' | 'interrupted';

/** How one account's part of a daemon job ended. */
export interface AccountRun {
  /** The account's configured name; absent for a config without `accounts:` (its one account). */
  account?: string;
  outcome: RunOutcome;
  /** How long the account's part took; absent: the job's own duration. */
  durationMs?: number;
  /** A sync's summary, when its run reached its manifest. */
  summary?: SyncSummary;
  /** Why a failed account failed: the error's stable code and its message (token-free, as every error). */
  failure?: { code: string; message: string };
}

/** What a daemon job resolves with: each account's part, in the order of the config. */
export interface JobResult {
  runs: AccountRun[];
  /** The load that followed a sync (`load:` in the config): where to, and the manifests it loaded. */
  load?: { target: string; manifests_loaded: number };
}

/**
 * The outcome of a job over several accounts (docs/operations.md, "Several
 * accounts"): `failed` when every account failed (a config of one account: when
 * it did), `partial` when some account failed or ended partial while another
 * committed, `interrupted` when a stop cut one short and none failed, else
 * `succeeded`. A job that ran no account succeeded at nothing.
 */
export function jobOutcome(runs: readonly AccountRun[]): RunOutcome {
  if (runs.length > 0 && runs.every((r) => r.outcome === 'failed')) return 'failed';
  if (runs.some((r) => r.outcome === 'failed' || r.outcome === 'partial')) return 'partial';
  if (runs.some((r) => r.outcome === 'interrupted')) return 'interrupted';
  return 'succeeded';
}
