import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Config } from '../../config/schema.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';
import { type RawPushFile, type ValidatedPushFiles, validatePushFiles } from './validate-push-files.js';

function readYaml(file: string, issues: ConfigIssue[]): RawPushFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    issues.push({
      path: file,
      message: code === 'ENOENT' ? 'file not found' : `cannot read: ${code ?? String(cause)}`,
    });
    return undefined;
  }
  try {
    return { file, data: parseYaml(text, { prettyErrors: true }) };
  } catch (cause) {
    issues.push({ path: file, message: `not valid YAML: ${(cause as Error).message.split('\n')[0]}` });
    return undefined;
  }
}

/**
 * Reads and statically validates the files named by `push.holidays` and
 * `push.business_hours` (paths relative to the working directory). Nothing here
 * calls the API; any problem ends with one ConfigError listing all of them (exit 64).
 */
export function loadPushFiles(push: Config['push']): ValidatedPushFiles {
  const issues: ConfigIssue[] = [];
  if (!push.holidays && !push.business_hours) {
    throw new ConfigError('the configuration', [
      { path: 'push', message: 'set push.holidays and/or push.business_hours to the YAML files to plan and apply' },
    ]);
  }
  const holidays = push.holidays ? readYaml(push.holidays, issues) : undefined;
  const businessHours = push.business_hours ? readYaml(push.business_hours, issues) : undefined;
  const result = validatePushFiles({ holidays, businessHours });
  issues.push(...result.issues);
  if (issues.length > 0) {
    const files = [push.holidays, push.business_hours].filter((f): f is string => Boolean(f));
    throw new ConfigError(files.join(' and '), issues);
  }
  return result.files;
}
