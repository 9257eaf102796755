import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { interpolateEnv } from './interpolate.js';
import { type Config, configSchema } from './schema.js';

/** Default config path of design.md §10. */
export const DEFAULT_CONFIG_PATH = 'config/helpdesk-sync.yaml';

/** Turns zod issues into `path: message` lines (style.md rule 3). */
export function zodIssues(error: z.ZodError, prefix: string[] = []): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map(String)].join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') message = `unknown key(s): ${issue.keys.join(', ')}`;
    return { path, message };
  });
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname) || hostname.startsWith('127.');
}

/** Rules that span fields, checked after the schema accepted the shape. */
function crossFieldIssues(config: Config): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const url = new URL(config.source.base_url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    issues.push({ path: 'source.base_url', message: `expected an http(s) URL, got ${url.protocol}` });
  } else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !config.source.allow_insecure_http) {
    issues.push({
      path: 'source.base_url',
      message: 'must use https unless the host is loopback; set source.allow_insecure_http: true to override',
    });
  }
  if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) {
    issues.push({ path: 'source.base_url', message: 'must end in the version prefix /v1' });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(config.state.path)) {
    issues.push({
      path: 'state.path',
      message:
        'must be a local file path (state in object storage is not supported yet); mount a volume for containers',
    });
  }
  if (config.schedule.push && !config.push.holidays && !config.push.business_hours) {
    issues.push({ path: 'schedule.push', message: 'needs push.holidays or push.business_hours to apply' });
  }
  return issues;
}

/**
 * Validates an already-parsed config object. All problems, from interpolation,
 * schema and cross-field rules, come back in one ConfigError.
 */
export function parseConfig(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): Config {
  const issues: ConfigIssue[] = [];
  const interpolated = interpolateEnv(raw ?? {}, env, issues);
  const result = configSchema.safeParse(interpolated);
  if (!result.success) issues.push(...zodIssues(result.error));
  if (issues.length > 0 || !result.success) {
    throw new ConfigError(source, dedupe(issues));
  }
  const crossIssues = crossFieldIssues(result.data);
  if (crossIssues.length > 0) throw new ConfigError(source, crossIssues);
  return result.data;
}

/** Reads a YAML or JSON file (JSON is valid YAML) and validates it. */
export function loadConfig(path: string = DEFAULT_CONFIG_PATH, env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(cause);
    throw new ConfigError(path, [{ path: '', message: reason }], { cause });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (cause) {
    throw new ConfigError(path, [{ path: '', message: `not valid YAML/JSON: ${(cause as Error).message}` }], {
      cause,
    });
  }
  return parseConfig(raw, path, env);
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
