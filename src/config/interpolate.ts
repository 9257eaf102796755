import type { ConfigIssue } from '../errors.js';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** One `${NAME}` a value was read through: the variable, and whether its `:-default` stood in for it. */
export interface VariableUse {
  name: string;
  /** The variable was unset or empty, so the placeholder's default was used. */
  fromDefault: boolean;
}

/**
 * The variables each value of a config was read through, by its path
 * (`source.token` → HELPDESK_TOKEN), so a message about a value can name the
 * variable to change rather than the file (never the value itself).
 */
export type ConfigVariables = ReadonlyMap<string, readonly VariableUse[]>;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a parsed config tree.
 * Interpolation runs after parsing, so an environment value can never inject
 * structure into the YAML. A missing variable without a default is an issue at
 * that path; the caller reports all issues at once. `used`, when given, collects
 * the variables each path was read through.
 */
export function interpolateEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
  path: string[] = [],
  used?: Map<string, VariableUse[]>,
): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      const record = (fromDefault: boolean) => {
        const key = path.join('.');
        used?.set(key, [...(used.get(key) ?? []), { name, fromDefault }]);
      };
      if (found !== undefined && found !== '') {
        record(false);
        return found;
      }
      record(true);
      if (fallback !== undefined) return fallback;
      issues.push({ path: path.join('.'), message: `environment variable ${name} is not set` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, issues, [...path, String(i)], used));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolateEnv(v, env, issues, [...path, k], used);
    return out;
  }
  return value;
}
