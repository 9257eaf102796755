import { API_ERROR_CODES, type ApiErrorCode } from './errors.js';

/**
 * What an HTTP status means to the connector, in one table (in the manner of
 * airbyte's default error mapping): its stable code, whether the same request
 * may be sent again, and the hint a person can act on when no caller knows
 * better. Everything that turns a status into a decision reads it from here:
 * the error class (./error-from-response.ts), the queue's retries, and the
 * messages of push and the streams (through hintFor, with their own words).
 */
export interface StatusRule {
  readonly code: ApiErrorCode;
  /** Sending the same request again may succeed (the queue still retries writes only when provably unsent). */
  readonly retryable: boolean;
  /** What to do about it, in words that fit any request. */
  readonly hint: string;
}

/** The statuses the API document names, one row each. */
export const STATUS_TABLE: Readonly<Record<number, StatusRule>> = {
  // Authentication rule 6 (Errors: 401): missing, expired or revoked token; only a new token helps.
  401: { code: API_ERROR_CODES.unauthorized, retryable: false, hint: 'check source.token' },
  // Authentication rule 7 (Errors: 403): the token lacks the scope, or the user lacks access.
  403: {
    code: API_ERROR_CODES.forbidden,
    retryable: false,
    hint: 'the token lacks the scope, or its user lacks access to this resource',
  },
  // Authentication rule 8 (Errors: 404): absent or in another organization, not distinguished.
  404: {
    code: API_ERROR_CODES.notFound,
    retryable: false,
    hint: 'the resource does not exist, or belongs to another organization',
  },
  // Errors: 409, the state machine rejects a sensible request; the same request meets the same state.
  409: {
    code: API_ERROR_CODES.conflict,
    retryable: false,
    hint: 'the current state of the resource does not allow this change',
  },
  // Errors: 422, validation failure (or a business-hours channel bound to another profile).
  422: { code: API_ERROR_CODES.validation, retryable: false, hint: 'the API refused the values sent' },
  // Errors: 429 with Retry-After (Limits: "A throttled request gets 429 with a Retry-After header").
  429: {
    code: API_ERROR_CODES.rateLimited,
    retryable: true,
    hint: 'the rate limit stayed exhausted; lower source.rate_limit.requests_per_minute, or run when the other clients on the IP are idle',
  },
};

/** Errors: 500, an unexpected exception logged with a UUID; the whole 5xx class is a server fault, worth a retry. */
export const SERVER_ERROR_RULE: StatusRule = {
  code: API_ERROR_CODES.server,
  retryable: true,
  hint: 'the service failed; try again later, quoting the request id to its operators',
};

/** Any other non-2xx status: the API document does not name it (Errors, further rule 1), so nothing promises a retry helps. */
export const OTHER_STATUS_RULE: StatusRule = {
  code: API_ERROR_CODES.http,
  retryable: false,
  hint: 'the API answered a status its document does not describe',
};

/** The rule of an HTTP status: its own row, the 5xx class, or the rule for any other status. */
export function statusRule(status: number): StatusRule {
  const row = STATUS_TABLE[status];
  if (row) return row;
  return status >= 500 && status <= 599 ? SERVER_ERROR_RULE : OTHER_STATUS_RULE;
}

const RULES_BY_CODE: ReadonlyMap<ApiErrorCode, StatusRule> = new Map(
  [...Object.values(STATUS_TABLE), SERVER_ERROR_RULE, OTHER_STATUS_RULE].map((rule) => [rule.code, rule]),
);
const KNOWN_CODES: ReadonlySet<unknown> = new Set(Object.values(API_ERROR_CODES));

/**
 * The stable code of an error from the API layer, read as plain data: its
 * `code` when that is one of API_ERROR_CODES, else its `status` through the
 * table. So callers (and fakes in tests) need neither the class nor a status
 * comparison of their own.
 */
export function apiErrorCodeOf(error: unknown): ApiErrorCode | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, status } = error as { code?: unknown; status?: unknown };
  if (KNOWN_CODES.has(code)) return code as ApiErrorCode;
  return typeof status === 'number' ? statusRule(status).code : undefined;
}

/**
 * The hints of one context (push writes, push reads, a stream), by code. A
 * context names only the codes it explains; any other code gets no hint there,
 * because its message already says enough.
 */
export interface HintContext {
  /** This context's own words: they replace the table's hint for these codes. */
  readonly own?: Partial<Record<ApiErrorCode, string>>;
  /** Codes that get the table's hint as it is. */
  readonly generic?: readonly ApiErrorCode[];
}

/**
 * The one lookup of a user hint for an error: the context's own words for its
 * code, else the table's hint when the context takes it (or when no context is
 * given), else none.
 */
export function hintFor(error: unknown, context?: HintContext): string | undefined {
  const code = apiErrorCodeOf(error);
  if (code === undefined) return undefined;
  const own = context?.own?.[code];
  if (own !== undefined) return own;
  if (context !== undefined && !context.generic?.includes(code)) return undefined;
  return RULES_BY_CODE.get(code)?.hint;
}
