import type { Config } from '../../config/schema.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';
import { loadPushFiles } from '../files/load-push-files.js';
import type { ValidatedPushFiles } from '../files/validate-push-files.js';
import { buildDesiredState, type DesiredState, type InboxInfo } from './build-desired-state.js';
import type { PushApi } from './push-api.js';
import { readInboxes } from './read-remote.js';

/** The push files' problems, in the one ConfigError plan and apply end with (exit 64). */
export function failOnIssues(push: Config['push'], issues: readonly ConfigIssue[]): void {
  const names = [push.holidays, push.business_hours].filter((f): f is string => Boolean(f));
  if (issues.length > 0) throw new ConfigError(names.join(' and '), [...issues]);
}

/**
 * What the push files ask for, validated as plan validates them: the files
 * read and checked without the API (a problem there ends it before any
 * request), then the one read validation needs, GET /inboxes, to resolve the
 * inbox names of business hours. `plan`, `apply` and `check` all go through here.
 */
export async function desiredStateOf(
  push: Config['push'],
  api: Pick<PushApi, 'listInboxes'>,
): Promise<{ files: ValidatedPushFiles; inboxes: InboxInfo[]; desired: DesiredState }> {
  const files = loadPushFiles(push);
  const inboxes = files.businessHours ? await readInboxes(api) : [];
  const { desired, issues } = buildDesiredState(files, inboxes);
  failOnIssues(push, issues);
  return { files, inboxes, desired };
}
