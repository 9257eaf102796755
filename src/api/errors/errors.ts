import { HelpdeskSyncError } from '../../errors.js';
import { redactDeep } from '../../redact.js';
import { createRedactor, type Redactor, redactError } from './redact-secrets.js';

/**
 * Stable codes of API errors. Callers branch on these (or on the class), never
 * on messages. Which status gets which code, and whether it is retried, is the
 * table of ./status-table.ts (API document, Errors and Authentication).
 */
export const API_ERROR_CODES = {
  unauthorized: 'API_UNAUTHORIZED', // 401
  forbidden: 'API_FORBIDDEN', // 403
  notFound: 'API_NOT_FOUND', // 404
  conflict: 'API_CONFLICT', // 409
  validation: 'API_VALIDATION', // 422
  rateLimited: 'API_RATE_LIMITED', // 429
  server: 'API_SERVER', // 5xx
  network: 'API_NETWORK', // connection refused/reset, DNS
  timeout: 'API_TIMEOUT', // connect or response timeout
  badResponse: 'API_BAD_RESPONSE', // malformed JSON or an unusable shape
  paginationLoop: 'API_PAGINATION_LOOP', // same next link twice
  redirect: 'API_REDIRECT', // a redirect refused: another origin, a loop, too many
  http: 'API_HTTP', // any other status
} as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[keyof typeof API_ERROR_CODES];

export interface ApiErrorInit {
  code: ApiErrorCode;
  method: string;
  url: string;
  status?: number;
  /** The API's own `message` (Error body: always at least `message`). */
  apiMessage?: string;
  /** The API's 422 `errors` object: field name → messages. */
  fieldErrors?: Record<string, string[]>;
  /** The parsed (or raw text) response body. Kept non-enumerable so logs stay small. */
  body?: unknown;
  requestId?: string;
  /** Milliseconds the server asked us to wait (429 Retry-After). */
  retryAfterMs?: number;
  /** True when the request provably never reached the server (connection refused, DNS, connect timeout). */
  notSent?: boolean;
  /** Overrides the generated message (still redacted). */
  message?: string;
  cause?: unknown;
  /** Values to redact beyond those registered with registerSecret (the client's token). */
  secrets?: readonly (string | undefined)[];
}

function describe(init: ApiErrorInit): string {
  if (init.message) return init.message;
  const head = `${init.method} ${init.url} failed${init.status === undefined ? '' : ` with status ${init.status}`}`;
  const parts = [`${head} (${init.code})`];
  if (init.apiMessage) parts.push(init.apiMessage);
  if (init.fieldErrors) {
    const fields = Object.entries(init.fieldErrors).map(([field, msgs]) => `${field}: ${msgs.join(' ')}`);
    if (fields.length > 0) parts.push(`[${fields.join('; ')}]`);
  }
  if (init.requestId) parts.push(`request id ${init.requestId}`);
  return parts.join(': ');
}

function cleanInit(init: ApiErrorInit, redact: Redactor): ApiErrorInit {
  return {
    ...init,
    url: redact(init.url),
    apiMessage: init.apiMessage === undefined ? undefined : redact(init.apiMessage),
    fieldErrors:
      init.fieldErrors &&
      Object.fromEntries(Object.entries(init.fieldErrors).map(([field, msgs]) => [field, msgs.map((m) => redact(m))])),
    requestId: init.requestId === undefined ? undefined : redact(init.requestId),
    message: init.message === undefined ? undefined : redact(init.message),
  };
}

/**
 * An error answered by (or on the way to) the API. Everything it holds is
 * redacted in this constructor (like Octokit's RequestError), so no
 * message, stack, JSON or inspection of it can leak the token. The cause is a
 * redacted copy, never got's error (which keeps the request headers).
 */
export class ApiError extends HelpdeskSyncError {
  readonly code: ApiErrorCode;
  readonly status?: number;
  readonly apiMessage?: string;
  readonly fieldErrors?: Record<string, string[]>;
  declare readonly body?: unknown;
  readonly method: string;
  /** The request URL, without credentials. */
  readonly url: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  /** True when the request provably never reached the server, so even a write may be sent again. */
  readonly notSent?: boolean;

  constructor(init: ApiErrorInit) {
    const redact = createRedactor(init.secrets ?? []);
    const clean = cleanInit(init, redact);
    const cause = init.cause === undefined ? undefined : redactError(init.cause, redact);
    super(redact(describe(clean)), cause === undefined ? undefined : { cause });
    this.code = clean.code;
    this.method = clean.method;
    this.url = clean.url;
    if (clean.status !== undefined) this.status = clean.status;
    if (clean.apiMessage !== undefined) this.apiMessage = clean.apiMessage;
    if (clean.fieldErrors !== undefined) this.fieldErrors = clean.fieldErrors;
    if (clean.requestId !== undefined) this.requestId = clean.requestId;
    if (clean.retryAfterMs !== undefined) this.retryAfterMs = clean.retryAfterMs;
    if (clean.notSent) this.notSent = true;
    Object.defineProperty(this, 'body', {
      value: init.body === undefined ? undefined : redactDeep(init.body, redact),
      enumerable: false,
      writable: false,
      configurable: true,
    });
  }

  /** True when a caller may try the same request again later (429, 5xx, network, timeout). */
  get retriable(): boolean {
    return false;
  }
}

/** Worth retrying: 429, 5xx, network failures and timeouts. */
export class RetriableApiError extends ApiError {
  override get retriable(): boolean {
    return true;
  }
}

/** Retrying cannot help: 400/401/403/404/409/422, other statuses, malformed bodies, pagination loops. */
export class FatalApiError extends ApiError {}

/** Type guard usable on errors that crossed module boundaries. */
export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
