import { REDACTED, scrubSecrets } from '../../redact.js';

/** A function that removes secrets from a piece of text. */
export type Redactor = (text: string) => string;

/** `Bearer <anything>` is a credential whatever its value (API document, Authentication rule 1). */
const BEARER = /\b(Bearer)\s+[^\s"',;]+/gi;
/** Query parameters that conventionally carry credentials. */
const SECRET_PARAMS = /([?&](?:token|access_token|api_key|apikey|key|password)=)[^&#\s"']*/gi;

/**
 * Builds a redactor for the given secret values, on top of every secret
 * registered with `registerSecret` (src/redact.ts). Used by ApiError's constructor
 * so that an error can never carry a token into a log line.
 */
export function createRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const own = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return (text: string) => {
    let out = scrubSecrets(text);
    for (const secret of own) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out.replace(BEARER, `$1 ${REDACTED}`).replace(SECRET_PARAMS, `$1${REDACTED}`);
  };
}

/**
 * A token-free copy of an error used as `cause`: got's errors keep the request
 * options (headers included) on themselves, so they are never attached as is.
 */
export function redactError(error: unknown, redact: Redactor): Error {
  if (!(error instanceof Error)) return new Error(redact(String(error)));
  const copy = new Error(redact(error.message));
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') (copy as Error & { code?: string }).code = code;
  copy.stack = redact(error.stack ?? `${error.name}: ${error.message}`);
  return copy;
}
