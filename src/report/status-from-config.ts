import type { Config } from '../config/schema.js';
import { stateSettingsOf } from '../config/state-location.js';
import type { Logger } from '../log.js';
import { explainStateError } from '../state/explain-state-error.js';
import { type RunHistoryEntry, readRunHistory } from '../state/run-history.js';
import { openStateFromConfig } from '../state/state-from-config.js';
import { safeUrl } from './html.js';
import { nextRunOf } from './next-run.js';
import type { StatusInput } from './status-view.js';

/** The runs the state remembers, newest first: opened as `state show` opens it (read, never written back). */
export async function readRunsFromState(config: Config, logger: Logger): Promise<RunHistoryEntry[]> {
  const state = await openStateFromConfig(stateSettingsOf(config), { logger });
  try {
    return readRunHistory(state.db.db);
  } catch (error) {
    throw explainStateError(error, state.place);
  } finally {
    await state.close();
  }
}

/** What the page says of the config: the API's URL without credentials, and schedule.sync with its next time. */
export function statusContext(config: Config): {
  source: string;
  schedule?: { expression: string; timezone: string; next: () => Date | undefined };
} {
  const expression = config.schedule.sync;
  const timezone = config.schedule.timezone;
  return {
    source: safeUrl(config.source.base_url),
    ...(expression ? { schedule: { expression, timezone, next: () => nextRunOf(expression, timezone) } } : {}),
  };
}

/** Everything `report --html` draws, read from the state and the config now. */
export async function statusInputFromState(config: Config, logger: Logger, now: Date): Promise<StatusInput> {
  const { source, schedule } = statusContext(config);
  const next = schedule?.next();
  return {
    runs: await readRunsFromState(config, logger),
    generatedAt: now,
    source,
    ...(schedule
      ? { schedule: { expression: schedule.expression, timezone: schedule.timezone, ...(next ? { next } : {}) } }
      : {}),
  };
}
