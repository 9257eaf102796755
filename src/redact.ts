/**
 * The one home of secret redaction: the registry of secret values (tokens,
 * keys) and the deep walk that scrubs a JSON-like value. The logger, error
 * constructors and the CLI's last-resort message all go through it.
 */

export const REDACTED = '[REDACTED]';

/** Known secret values, scrubbed wherever they appear. */
const secrets = new Set<string>();

/** Registers a secret so no log line, error or message can contain it. Short values are ignored (too many false hits). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) secrets.add(value);
}

/** Whether any secret is registered (lets hot paths skip the walk). */
export function hasSecrets(): boolean {
  return secrets.size > 0;
}

/** Replaces every registered secret in a string with [REDACTED]. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * Applies `redact` to every string of a JSON-like value and blanks any
 * `authorization` member whatever its value. Depth-limited (cycles cut).
 */
export function redactDeep(value: unknown, redact: (text: string) => string = scrubSecrets, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 12) return '[Truncated]';
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = /^authorization$/i.test(k) ? REDACTED : redactDeep(v, redact, depth + 1);
  }
  return out;
}
