import { type Clock, isoNow, systemClock } from '../clock.js';
import { defaultLoadTarget } from '../config/default-load-target.js';
import type { ParsedConfigFile } from '../config/load.js';
import { describeLoadTarget, type LoadTarget, type LoadTargetOrigin, parseLoadTarget } from '../config/load-target.js';
import type { Config } from '../config/schema.js';
import { HelpdeskSyncError, LoadPipelineMismatchError, LoadSchemaError, UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Manifest } from '../output/manifest.js';
import { SCHEMA_SET_VERSION } from '../output/rows/schema-version.js';
import { createSink } from '../output/sinks/create-sink.js';
import type { FaultPoint } from '../output/sinks/sink.js';
import { TABLE_NAMES, type TableName } from '../output/tables.js';
import { DIALECTS } from '../warehouse/dialects.js';
import { accountBackfill } from '../warehouse/evolution/account-evolution.js';
import { applyContract, compareSchema } from '../warehouse/evolution/schema-contract.js';
import { historyHook, historyTables } from '../warehouse/history/history-tables.js';
import { rawNotice, rawTables } from '../warehouse/merge/raw-tables.js';
import { openWarehouse, type WarehouseDrivers } from '../warehouse/open-warehouse.js';
import type { PipelineStatement } from '../warehouse/pipeline.js';
import { describeRefusal, planPipelines } from '../warehouse/plan-pipelines.js';
import type { ManifestHooks, ManifestLoads, Warehouse } from '../warehouse/warehouse.js';
import { type AccountsOutput, openAccountsOutput } from './accounts-output.js';
import type { LoadProgress } from './load-progress.js';
import { emptyTableCounts, type LoadSummary } from './load-summary.js';
import { loadTransactions } from './load-transactions.js';
import { openOutputFiles } from './output-files.js';

export interface LoadJobOptions extends WarehouseDrivers {
  /** The target (`--into`); overrides `load.into`. @default load.into, else a DuckDB file beside the state */
  into?: string;
  /** Load output of another pipeline than the one the target holds, on purpose (`--mix-pipelines`). @default false */
  mixPipelines?: boolean;
  logger: Logger;
  onProgress?: (progress: LoadProgress) => void;
  /** SIGINT/SIGTERM: finish the manifest being loaded, load no further one. */
  signal?: AbortSignal;
  /** Times of the summary and the progress. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /** Named steps where crash tests stop the process: load-locked, manifest-read, file-staged, table-merged, before-commit, manifest-loaded. */
  faultPoint?: FaultPoint;
  /** Rows one transaction takes at most (several manifests share one up to it; one manifest each with load.history). @default TRANSACTION_ROWS */
  transactionRows?: number;
  /**
   * The accounts whose output is loaded, each under its own prefix, into the one
   * target of `config` (a config's `accounts:`, src/config/accounts.ts): their
   * manifests in one run order, one pipeline per account.
   * @default [config]: the config's own output
   */
  accounts?: readonly Config[];
  /** Told once the load ended what it listed: the pending manifests, how many of them (the first) it loaded, and whose each is (record-load.ts). */
  onListed?: (listed: ListedManifests) => void;
}

/** The manifests a load found pending, in load order; the first `loaded` of them it loaded. */
export interface ListedManifests {
  pending: readonly Manifest[];
  loaded: number;
  accountOf(manifest: Manifest): string | null;
}

/** A load target and where it came from. */
export interface ResolvedTarget {
  target: LoadTarget;
  origin: LoadTargetOrigin;
}

/** The target `--into` names: with --into no config is needed (`query --into`). */
export function intoTarget(into: string): ResolvedTarget {
  const parsed = parseLoadTarget(into);
  if ('problem' in parsed) throw new UsageError(`--into: ${parsed.problem}`);
  return { target: parsed.target, origin: '--into' };
}

/** The target a load writes into, and where it came from: `--into`, else `load.into`, else the config's DuckDB default. */
export function resolveLoadTarget(config: Config, into?: string): ResolvedTarget {
  if (into !== undefined) return intoTarget(into);
  const origin: LoadTargetOrigin = config.load?.into !== undefined ? 'load.into' : 'default';
  const parsed =
    config.load?.into === undefined ? defaultLoadTarget(config.state.path) : parseLoadTarget(config.load.into);
  // load.into was checked with the config; the default of a state in S3 can still be wrong here.
  if ('problem' in parsed) throw new UsageError(parsed.problem);
  return { target: parsed.target, origin };
}

/**
 * What a load of a config file loads (docs/output.md, "Loading several
 * accounts"): a file without `accounts:`, its one account's output; a file with
 * it, every account's output into the file's one target: `load.into` (which
 * src/config/accounts.ts gives every account), else the DuckDB file beside the
 * file's own `state.path` (not beside an account's state).
 */
export function loadOfConfigFile(parsed: ParsedConfigFile): { config: Config; accounts?: Config[] } {
  const [first] = parsed.accounts;
  if (!parsed.several || !first) return { config: first! };
  const { account: _, ...shared } = first;
  return {
    config: { ...shared, state: parsed.file.state, destination: parsed.file.destination },
    accounts: parsed.accounts,
  };
}

interface Run {
  warehouse: Warehouse;
  /** History mode's hook for the manifest transactions (load.history). */
  history: ManifestHooks['history'];
  /** Whether every batch is appended to `<table>_raw` too (load.keep_raw, raw-tables.ts). */
  raw: boolean;
  files: AccountsOutput;
  summary: LoadSummary;
  progress: LoadProgress;
  options: LoadJobOptions;
  started: number;
}

/** What the checks before the first row decided for each manifest's transaction. */
interface Prepared {
  /** Per run_id: its pipeline bookkeeping. */
  pipelines: ReadonlyMap<string, PipelineStatement>;
  /** The schema changes the contract allows, run in the first transaction. */
  schemaChanges: readonly string[];
}

/** Loads the manifests in one transaction; the progress counts their rows until it fails. */
async function loadOne(
  run: Run,
  manifests: readonly Manifest[],
  hooks: { pipelines: ReadonlyMap<string, PipelineStatement>; before: readonly string[] },
  fault: FaultPoint,
): Promise<ManifestLoads> {
  const { progress, options } = run;
  const clock = options.clock ?? systemClock;
  const before = progress.rows;
  progress.run_id = manifests[0]!.run_id;
  progress.last_run_id = manifests.length > 1 ? manifests.at(-1)!.run_id : undefined;
  progress.table = undefined;
  const onTable = (table: TableName, load: { rows: number }) => {
    progress.table = table;
    progress.rows += load.rows;
    progress.elapsed_ms = clock.now() - run.started;
    options.onProgress?.({ ...progress });
  };
  try {
    const accountOf = run.files.accountOf;
    return await run.warehouse.loadManifests(manifests, run.files, {
      onTable,
      fault,
      history: run.history,
      raw: run.raw,
      accountOf,
      ...hooks,
    });
  } catch (error) {
    progress.rows = before;
    throw error;
  } finally {
    await run.files.clean();
  }
}

/** Records in the summary (and the log) that a manifest could not be loaded. */
function fail(run: Pick<Run, 'summary' | 'options'>, runId: string, error: unknown): void {
  const code = error instanceof HelpdeskSyncError ? error.code : 'LOAD_FAILED';
  run.summary.status = 'failed';
  run.summary.failure = { run_id: runId, code, message: (error as Error)?.message ?? String(error) };
  run.options.logger.error({ event: 'load.manifest_failed', run_id: runId, err: error }, 'manifest not loaded');
}

/** After a commit: each manifest of the transaction counted in the summary, the progress and the log. */
async function loaded(run: Run, manifests: readonly Manifest[], loads: ManifestLoads, fault: FaultPoint) {
  const { summary, progress, options } = run;
  for (const manifest of manifests) {
    await fault('manifest-loaded');
    const tables = loads.get(manifest.run_id) ?? {};
    for (const [table, load] of Object.entries(tables)) {
      const counts = summary.tables[table as TableName];
      counts.rows += load.rows;
      counts.errors += load.errors;
    }
    summary.manifests_loaded++;
    progress.manifests_done++;
    options.logger.info({ event: 'load.manifest', run_id: manifest.run_id, tables }, 'manifest loaded');
  }
}

/** The state of the loop over transactions: the schema changes still to run (in the first that commits). */
interface Pending {
  prepared: Prepared;
  schemaChanges: readonly string[];
}

/**
 * Loads the manifests in one transaction. When it fails and holds several, they
 * are loaded again one per transaction, in order, so that those before the one
 * that fails are loaded and the failure names it. False when one failed or the
 * load was interrupted.
 */
async function loadTransaction(run: Run, manifests: Manifest[], state: Pending, fault: FaultPoint): Promise<boolean> {
  const { options, summary } = run;
  if (options.signal?.aborted) {
    summary.status = 'interrupted';
    return false;
  }
  for (let i = 0; i < manifests.length; i++) await fault('manifest-read');
  const hooks = { pipelines: state.prepared.pipelines, before: state.schemaChanges };
  let loads: ManifestLoads;
  try {
    loads = await loadOne(run, manifests, hooks, fault);
  } catch (error) {
    if (manifests.length === 1) {
      fail(run, manifests[0]!.run_id, error);
      return false;
    }
    options.logger.warn(
      { event: 'load.transaction_split', manifests: manifests.length, run_id: manifests[0]!.run_id, err: error },
      'a transaction of several manifests failed; loading them one by one',
    );
    for (const manifest of manifests) if (!(await loadTransaction(run, [manifest], state, fault))) return false;
    return true;
  }
  state.schemaChanges = [];
  await loaded(run, manifests, loads, fault);
  return true;
}

/** Loads the pending manifests in order, several per transaction; stops at the first that fails (later ones depend on it). */
async function loadPending(run: Run, pending: Manifest[], prepared: Prepared, fault: FaultPoint): Promise<void> {
  const state: Pending = { prepared, schemaChanges: prepared.schemaChanges };
  // History mode keeps one manifest per transaction: each manifest's versions become
  // their own intervals in <table>_history, built from that manifest's batch alone.
  const budget = run.history ? 1 : run.options.transactionRows;
  for (const manifests of loadTransactions(pending, budget)) {
    if (!(await loadTransaction(run, manifests, state, fault))) break;
  }
  run.summary.manifests_pending = pending.length - run.summary.manifests_loaded;
}

/**
 * The checks before any row: every pending manifest against the pipelines the
 * target holds, then every table they touch against the schema set under the
 * schema contract. Undefined (and the failure in the summary) when one refuses.
 */
async function prepare(run: Run, config: Config, pending: Manifest[]): Promise<Prepared | undefined> {
  if (pending.length === 0) return { pipelines: new Map(), schemaChanges: [] };
  const { warehouse, summary, options, files } = run;
  const held = await warehouse.pipelines();
  const named = (options.accounts ?? []).flatMap((a) => (a.account ? [a.account.name] : []));
  const plan = planPipelines(held, pending, {
    mix: options.mixPipelines === true,
    accounts: new Set(named),
    accountOf: files.accountOf,
  });
  if (!plan.ok) {
    fail(run, plan.others[0]!.run_id, new LoadPipelineMismatchError(describeRefusal(summary.target, plan)));
    return undefined;
  }
  const contract = config.load?.schema_contract ?? 'evolve';
  // Every output table, not only those the manifests touch: a table evolved later would find the
  // pipelines of other accounts beside the one that wrote its rows (account-evolution.ts).
  const differences = await compareSchema(warehouse.schema, TABLE_NAMES, {
    backfill: accountBackfill(held, pending, files.accountOf),
    history: historyTables(config.load?.history),
    raw: run.raw,
  });
  const decision = applyContract(differences, contract, { target: summary.target, schemaSet: SCHEMA_SET_VERSION });
  if ('refusal' in decision) {
    fail(run, pending[0]!.run_id, new LoadSchemaError(decision.refusal));
    return undefined;
  }
  if (decision.statements.length > 0) {
    options.logger.info({ event: 'load.schema_evolved', statements: decision.statements }, 'tables evolved');
  }
  return { pipelines: plan.statements, schemaChanges: decision.statements };
}

/**
 * The composition root of one load (docs/loading.md): opens the target
 * and takes its lock, creates the tables when absent, then loads the committed
 * manifests not loaded yet (of every account, `options.accounts`), in run_id
 * order, in transactions of one or more manifests, each recorded in the ledger
 * by the transaction that loads its rows. Returns the summary; a manifest that
 * could not be loaded is in `failure` (status `failed`), and nothing after it
 * was loaded.
 */
export async function loadJob(config: Config, options: LoadJobOptions): Promise<LoadSummary> {
  const clock = options.clock ?? systemClock;
  const fault = options.faultPoint ?? (() => undefined);
  const { target, origin } = resolveLoadTarget(config, options.into);
  const started = clock.now();
  const summary: LoadSummary = {
    target: describeLoadTarget(target),
    target_origin: origin,
    status: 'succeeded',
    started_at: isoNow(clock),
    finished_at: '',
    duration_ms: 0,
    manifests_loaded: 0,
    manifests_loaded_before: 0,
    manifests_pending: 0,
    tables: emptyTableCounts(),
  };
  const accounts = options.accounts ?? [config];
  const files = openAccountsOutput(
    accounts.map((account) => ({
      account: account.account?.name,
      files: openOutputFiles(createSink(account.destination, options.logger)),
    })),
  );
  // Before the target is opened: a wrong destination or directory must not leave an empty database behind.
  await files.requireOutput();
  const warehouse = await openWarehouse(target, options);
  try {
    const keepRaw = config.load?.keep_raw;
    const raw = await rawTables(warehouse.schema, keepRaw);
    const notice = rawNotice(raw, keepRaw);
    if (notice) options.logger[notice.level]({ event: 'load.raw_tables', tables: raw.found }, notice.text);
    await warehouse.setup({ raw: raw.keep });
    await fault('load-locked');
    const loaded = await warehouse.loadedRuns();
    summary.manifests_loaded_before = loaded.size;
    const pending = await files.pendingManifests(loaded);
    const progress: LoadProgress = {
      target: summary.target,
      elapsed_ms: 0,
      manifests_done: 0,
      manifests_total: pending.length,
      rows: 0,
    };
    // Only a `_raw` the target held before, and this load feeds, holds every version to start a history from.
    const history = historyHook(DIALECTS[target.kind], config.load?.history, raw.keep ? raw.found : []);
    const run: Run = { warehouse, history, raw: raw.keep, files, summary, progress, options, started };
    const prepared = await prepare(run, config, pending);
    if (prepared) await loadPending(run, pending, prepared, fault);
    else summary.manifests_pending = pending.length;
    options.onListed?.({ pending, loaded: summary.manifests_loaded, accountOf: files.accountOf });
    for (const table of TABLE_NAMES) summary.tables[table].current = await warehouse.currentRows(table);
  } finally {
    await files.clean();
    await warehouse.close();
  }
  summary.finished_at = isoNow(clock);
  summary.duration_ms = clock.now() - started;
  options.logger.info({ event: 'load.summary', summary }, `load ${summary.status}`);
  return summary;
}
