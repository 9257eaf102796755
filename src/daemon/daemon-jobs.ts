import { QueuePool, type RequestQueue } from '../api/index.js';
import { type Clock, systemClock } from '../clock.js';
import { pushAccounts } from '../config/accounts.js';
import type { ParsedConfigFile } from '../config/load.js';
import type { Config, SourceConfig } from '../config/schema.js';
import type { LoadSummary } from '../load/load-summary.js';
import type { Logger } from '../log.js';
import { applyJob } from '../push/index.js';
import { createAccountsProgressReporter } from '../sync/accounts/accounts-progress.js';
import { accountsLine } from '../sync/accounts/format-accounts.js';
import { failureOf, syncAccounts } from '../sync/accounts/sync-accounts.js';
import { createProgressReporter } from '../sync/progress.js';
import type { SyncProgress } from '../sync/sync-types.js';
import type { DaemonJob } from './daemon.js';
import type { AccountRun, JobResult } from './job-result.js';
import type { QueueCounters } from './request-metrics.js';
import { accountsLoader, syncAndLoad } from './sync-and-load.js';

export interface DaemonJobsOptions {
  logger: Logger;
  /** Key of the privacy policy's `hash` (HELPDESK_HASH_KEY). */
  hashKey?: string;
  /** Runs a load (the CLI runs it under V8's own collector: cli/gc-tuning.ts). */
  aroundLoad?: <T>(load: () => Promise<T>) => Promise<T>;
  /** A running sync's progress (of `account`, with several). */
  onProgress?: (progress: SyncProgress, account?: string) => void;
  clock?: Pick<Clock, 'now'>;
}

export interface DaemonJobs {
  /** The sync of every account at once (schedule.sync), then the load; absent when not scheduled. */
  sync?: DaemonJob;
  /** The apply of every account push.accounts names (schedule.push); absent when not scheduled. */
  push?: DaemonJob;
  /** Each request queue's counters, for /metrics. */
  queues(): QueueCounters[];
  /** Closes the queues (after the daemon has stopped). */
  close(): void;
}

/**
 * The daemon's jobs for the accounts of a config file (docs/operations.md,
 * "Several accounts"). One QueuePool serves the process: every job of every
 * account that reaches one origin from one local address (its syncs and its
 * applies) sends through one queue, one budget, as the API limits per client
 * IP. A config without `accounts:` runs as it always did: one sync job, one
 * apply, one queue. With several, each account's part is its own outcome: one
 * account's failure leaves the others committed or applied.
 */
export function daemonJobs(parsed: ParsedConfigFile, options: DaemonJobsOptions): DaemonJobs {
  const { logger } = options;
  const first = parsed.accounts[0] as Config;
  const pool = new QueuePool(logger);
  const queues = new Map<RequestQueue, QueueCounters['labels']>();
  for (const config of parsed.accounts) {
    const queue = pool.queueFor(config.source);
    if (!queues.has(queue)) queues.set(queue, parsed.several ? queueLabels(config.source) : {});
  }
  const load = parsed.several ? accountsLoader(parsed) : undefined;
  const sync = parsed.several ? syncOfAccounts(parsed.accounts, pool, options, load) : syncOfOne(first, pool, options);
  const pushTo = pushAccounts(parsed.file, parsed.accounts);
  const push = parsed.several ? pushOfAccounts(pushTo, pool, options) : pushOfOne(first, pool, options);
  return {
    ...(first.schedule.sync ? { sync } : {}),
    ...(first.schedule.push ? { push } : {}),
    queues: () => [...queues].map(([queue, labels]) => ({ labels, stats: queue.stats() })),
    close: () => pool.close(),
  };
}

/** The labels of a queue of several accounts: its origin, and the local address it sends from when one is set. */
function queueLabels(source: Pick<SourceConfig, 'base_url' | 'local_address'>): QueueCounters['labels'] {
  const origin = new URL(source.base_url).origin;
  return source.local_address === undefined ? { origin } : { origin, local_address: source.local_address };
}

function syncOfOne(config: Config, pool: QueuePool, options: DaemonJobsOptions): DaemonJob {
  return async (signal): Promise<JobResult> => {
    // Unattended: a structured sync.progress event every 10 s, no live block and no stdout line.
    const progress = createProgressReporter({ logger: options.logger });
    try {
      const { summary, load } = await syncAndLoad(config, {
        logger: options.logger,
        signal,
        queue: pool.queueFor(config.source),
        onProgress: (p) => {
          progress.update(p);
          options.onProgress?.(p);
        },
        hashKey: options.hashKey,
        aroundLoad: options.aroundLoad,
      });
      return { runs: [{ outcome: summary.status, summary }], ...loadedInto(load) };
    } finally {
      progress.done();
    }
  };
}

function syncOfAccounts(
  accounts: readonly Config[],
  pool: QueuePool,
  options: DaemonJobsOptions,
  load: ReturnType<typeof accountsLoader>,
): DaemonJob {
  const names = accounts.map((a) => a.account?.name ?? '');
  return async (signal): Promise<JobResult> => {
    const progress = createAccountsProgressReporter(names, { logger: options.logger });
    let outcomes: Awaited<ReturnType<typeof syncAccounts>>;
    try {
      outcomes = await syncAccounts(accounts, {
        logger: options.logger,
        signal,
        pool,
        hashKey: options.hashKey,
        onProgress: (account, p) => {
          progress.update(account, p);
          options.onProgress?.(p, account);
        },
      });
    } finally {
      progress.done();
    }
    options.logger.info(
      {
        event: 'daemon.accounts',
        job: 'sync',
        accounts: outcomes.map((o) => ({ account: o.account, status: o.status })),
      },
      accountsLine(outcomes),
    );
    const runs = outcomes.map(
      (o): AccountRun => ({
        account: o.account,
        outcome: o.status,
        durationMs: o.durationMs,
        ...(o.result ? { summary: o.result.summary } : {}),
        ...(o.failure ? { failure: { code: o.failure.code, message: o.failure.message } } : {}),
      }),
    );
    if (load && !signal.aborted && outcomes.some((o) => o.status === 'succeeded' || o.status === 'partial')) {
      return { runs, ...loadedInto(await load({ logger: options.logger, signal, aroundLoad: options.aroundLoad })) };
    }
    return { runs };
  };
}

/** The load that followed a sync, as the job's line says it. */
function loadedInto(load: LoadSummary | undefined): Pick<JobResult, 'load'> {
  return load ? { load: { target: load.target, manifests_loaded: load.manifests_loaded } } : {};
}

function pushOfOne(config: Config, pool: QueuePool, options: DaemonJobsOptions): DaemonJob {
  return async (signal): Promise<JobResult> => {
    await applyJob(config, { logger: options.logger, signal, queue: pool.queueFor(config.source) });
    return { runs: [{ outcome: 'succeeded' }] };
  };
}

/**
 * The apply of several accounts, one after another (as `apply` does): a failed
 * account is logged under its name and the next one applies. A stop ends the job
 * before the next account.
 */
function pushOfAccounts(accounts: readonly Config[], pool: QueuePool, options: DaemonJobsOptions): DaemonJob {
  const clock = options.clock ?? systemClock;
  return async (signal): Promise<JobResult> => {
    const runs: AccountRun[] = [];
    for (const config of accounts) {
      if (signal.aborted) break;
      const account = config.account?.name ?? '';
      const logger = options.logger.child({ account });
      const started = clock.now();
      try {
        await applyJob(config, { logger, signal, queue: pool.queueFor(config.source) });
        runs.push({ account, outcome: 'succeeded', durationMs: clock.now() - started });
      } catch (error) {
        logger.error({ event: 'account.failed', job: 'push', err: error }, `account ${account}: the apply failed`);
        const { code, message } = failureOf(error);
        runs.push({ account, outcome: 'failed', durationMs: clock.now() - started, failure: { code, message } });
      }
    }
    return { runs };
  };
}
