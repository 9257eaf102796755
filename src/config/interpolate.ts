import type { ConfigIssue } from '../errors.js';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a parsed config tree.
 * Interpolation runs after parsing, so an environment value can never inject
 * structure into the YAML. A missing variable without a default is an issue at
 * that path; the caller reports all issues at once.
 */
export function interpolateEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
  path: string[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      issues.push({ path: path.join('.'), message: `environment variable ${name} is not set` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, issues, [...path, String(i)]));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolateEnv(v, env, issues, [...path, k]);
    return out;
  }
  return value;
}
