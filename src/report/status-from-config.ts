import { resolve } from 'node:path';
import { defaultLoadTarget } from '../config/default-load-target.js';
import { describeLoadTarget, parseLoadTarget } from '../config/load-target.js';
import type { Config, DestinationConfig } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import type { Logger } from '../log.js';
import { explainStateError } from '../state/explain-state-error.js';
import { type LoadRecords, openLoadRecords } from '../state/load-records.js';
import { type RunHistoryEntry, readRunHistory } from '../state/run-history.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { safeUrl } from './html.js';
import { nextRunOf } from './next-run.js';
import type { AccountsStatusInput, StatusInput } from './status-view.js';
import { readWarehouseStatus, type TargetStatus } from './warehouse-status.js';

/** What the page shows of one account's state: its runs, newest first, and the warehouse side (undefined: its records could not be read). */
export interface AccountState {
  runs: RunHistoryEntry[];
  warehouse?: TargetStatus[];
}

/** The target the config's `load:` block loads into, described; undefined without one (or when it names none that parses). */
export function configuredLoadTarget(config: Config): string | undefined {
  if (!config.load) return undefined;
  const parsed =
    config.load.into === undefined ? defaultLoadTarget(config.state.path) : parseLoadTarget(config.load.into);
  return 'target' in parsed ? describeLoadTarget(parsed.target) : undefined;
}

/** The load records beside the state; undefined (and a warning) when they cannot be read: the runs are shown all the same. */
async function readLoadRecords(config: Config, logger: Logger): Promise<LoadRecords | undefined> {
  const records = openLoadRecords(stateSettingsOf(config));
  try {
    return await records.read();
  } catch (error) {
    logger.warn({ event: 'status.load_records_unreadable', err: error }, 'could not read the load records');
    return undefined;
  } finally {
    records.close();
  }
}

/**
 * The runs the state remembers, newest first, and each load target's last load
 * and lag: opened as `state show` opens it (read, never written back), once.
 */
export async function readAccountState(config: Config, logger: Logger): Promise<AccountState> {
  const records = await readLoadRecords(config, logger);
  const state = await openStateFromConfig(stateSettingsOf(config), { logger });
  try {
    const runs = readRunHistory(state.db.db);
    if (!records) return { runs };
    return { runs, warehouse: readWarehouseStatus(state.db.db, records, configuredLoadTarget(config)) };
  } catch (error) {
    throw explainStateError(error, state.place);
  } finally {
    await state.close();
  }
}

/** What the page says of the config: the API's URL without credentials, where the output goes, and schedule.sync with its next time. */
export function statusContext(config: Config): {
  source: string;
  output: string;
  schedule?: { expression: string; timezone: string; next: () => Date | undefined };
} {
  const expression = config.schedule.sync;
  const timezone = config.schedule.timezone;
  return {
    source: safeUrl(config.source.base_url),
    output: outputLocation(config.destination),
    ...(expression ? { schedule: { expression, timezone, next: () => nextRunOf(expression, timezone) } } : {}),
  };
}

/**
 * Where the runs' files are, as a person opens them: the local directory made absolute (the page
 * is read away from the config's working directory), or `s3://bucket/prefix/` with a custom
 * endpoint's URL (without credentials).
 */
export function outputLocation(destination: DestinationConfig): string {
  if (destination.type === 'local') return resolve(destination.path, destination.prefix);
  const key = destination.prefix ? `${destination.prefix.replace(/\/+$/, '')}/` : '';
  return `s3://${destination.bucket}/${key}${destination.endpoint ? ` at ${safeUrl(destination.endpoint)}` : ''}`;
}

/**
 * schedule.sync as `report --html` says it: the expression, not its next time. No daemon is known
 * to run it, so a copy of the page claims no next run.
 */
function scheduleOnly(schedule: ReturnType<typeof statusContext>['schedule']): Pick<StatusInput, 'schedule'> {
  return schedule ? { schedule: { expression: schedule.expression, timezone: schedule.timezone } } : {};
}

/** Everything `report --html` draws of one account, read from the state and the config now. */
export async function statusInputFromState(config: Config, logger: Logger, now: Date): Promise<StatusInput> {
  const { source, output, schedule } = statusContext(config);
  return {
    ...(await readAccountState(config, logger)),
    generatedAt: now,
    source,
    output,
    drawnBy: 'report',
    ...scheduleOnly(schedule),
    ...(config.account ? { account: config.account.name } : {}),
  };
}

/**
 * Everything `report --html` draws of several accounts: each account's runs,
 * read from its own state, one account after another (each state is opened
 * read-only and closed before the next).
 */
export async function accountsStatusFromState(
  accounts: readonly Config[],
  logger: Logger,
  now: Date,
): Promise<AccountsStatusInput> {
  const parts: AccountsStatusInput['accounts'] = [];
  for (const config of accounts) {
    parts.push({
      name: config.account?.name ?? '',
      source: safeUrl(config.source.base_url),
      output: outputLocation(config.destination),
      ...(await readAccountState(config, logger)),
    });
  }
  return {
    accounts: parts,
    generatedAt: now,
    drawnBy: 'report',
    ...scheduleOnly(statusContext(accounts[0] as Config).schedule),
  };
}
