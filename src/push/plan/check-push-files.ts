import type { Config } from '../../config/schema.js';
import { loadPushFiles } from '../files/load-push-files.js';
import type { ValidatedPushFiles } from '../files/validate-push-files.js';
import { desiredStateOf } from './desired-state-of.js';
import type { PushApi } from './push-api.js';

/** `valid: ./config/holidays.yaml (16 holidays), ./config/business-hours.yaml (3 business-hours profiles)` */
function counted(files: ValidatedPushFiles): string {
  const parts: string[] = [];
  if (files.holidays) parts.push(`${files.holidays.file} (${files.holidays.entries.length} holidays)`);
  if (files.businessHours) {
    parts.push(`${files.businessHours.file} (${files.businessHours.entries.length} business-hours profiles)`);
  }
  return `valid: ${parts.join(', ')}`;
}

/**
 * `check`'s look at the push files: validated exactly as `plan` validates them
 * (desiredStateOf), so a file plan would refuse fails check with the same
 * lines. Without `api` (the API did not answer) only what needs no request is
 * checked, and the detail says the inbox names were not. Throws the plan's
 * ConfigError; returns what was found.
 */
export async function checkPushFiles(push: Config['push'], api?: Pick<PushApi, 'listInboxes'>): Promise<string> {
  if (!api) {
    const files = loadPushFiles(push);
    const names = files.businessHours ? '; the inbox names are checked once the API answers' : '';
    return `${counted(files)}${names}`;
  }
  const { files } = await desiredStateOf(push, api);
  return `${counted(files)}${files.businessHours ? ', every inbox found' : ''}`;
}
