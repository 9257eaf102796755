import { API_ERROR_CODES, type ApiError, FatalApiError, RetriableApiError } from './errors.js';
import { statusRule } from './status-table.js';

/** What a single HTTP attempt gave back, before any interpretation. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Body text as received (JSON expected, see Rules 1 of "What the service does"). */
  body: string;
}

export interface RequestDescription {
  method: string;
  /** Full request URL (never carries the token: the token travels in a header). */
  url: string;
  secrets?: readonly (string | undefined)[];
}

export function headerValue(headers: RawResponse['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Parses a body, or returns undefined when it is empty or not JSON. */
export function tryParseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The 422 `errors` object (Error body): field → array of strings; odd values are stringified, not dropped. */
function fieldErrorsOf(body: unknown): Record<string, string[]> | undefined {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (errors === null || typeof errors !== 'object' || Array.isArray(errors)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, value] of Object.entries(errors)) {
    const list = Array.isArray(value) ? value : [value];
    out[field] = list.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  }
  return out;
}

/** A request id from the usual headers, else the incident UUID a 500 body names (Errors: "logged with a UUID"). */
function requestIdOf(response: RawResponse, message: string | undefined): string | undefined {
  for (const name of ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid']) {
    const value = headerValue(response.headers, name);
    if (value) return value;
  }
  return message?.match(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i)?.[0];
}

/**
 * Turns a non-2xx response into a typed error: the code and the class (retriable
 * or fatal) come from the status table (./status-table.ts), the rest from the body.
 */
export function errorFromResponse(
  response: RawResponse,
  request: RequestDescription,
  extra: { retryAfterMs?: number } = {},
): ApiError {
  const parsed = tryParseJson(response.body);
  const body = parsed ?? (response.body === '' ? undefined : response.body);
  const rawMessage = (parsed as { message?: unknown } | undefined)?.message;
  const apiMessage = typeof rawMessage === 'string' ? rawMessage : undefined;
  const rule = statusRule(response.status);
  const init = {
    code: rule.code,
    status: response.status,
    method: request.method,
    url: request.url,
    apiMessage,
    fieldErrors: fieldErrorsOf(parsed),
    body,
    requestId: requestIdOf(response, apiMessage),
    retryAfterMs: extra.retryAfterMs,
    secrets: request.secrets,
  };
  return rule.retryable ? new RetriableApiError(init) : new FatalApiError(init);
}

/** A 2xx body that is not JSON: fatal, the request itself may have had effects. */
export function badResponseError(response: RawResponse, request: RequestDescription, cause?: unknown): FatalApiError {
  return new FatalApiError(badBodyInit(response, request, cause));
}

/**
 * For a GET or POST /search: a 2xx body that is empty or not JSON (cut short by
 * a proxy, an HTML page) is transient like a 5xx, since asking again changes
 * nothing on the server. Undefined when the body parses.
 */
export function unparseableBodyError(
  response: RawResponse,
  request: RequestDescription,
): RetriableApiError | undefined {
  let cause: unknown;
  try {
    if (response.body.trim() !== '') {
      JSON.parse(response.body);
      return undefined;
    }
  } catch (error) {
    cause = error;
  }
  return new RetriableApiError(badBodyInit(response, request, cause));
}

/**
 * For a read: a 2xx whose body is JSON but not of the shape the endpoint serves
 * (`{"data": null}` for a thread). Transient like a body cut short: a layer in
 * front of the API answered in its own shape, and asking again changes nothing
 * on the server.
 */
export function wrongShapeError(response: RawResponse, request: RequestDescription, why: string): RetriableApiError {
  const what = `JSON of the wrong shape (${why})`;
  return new RetriableApiError(badBodyInit(response, request, undefined, what));
}

function badBodyInit(
  response: RawResponse,
  request: RequestDescription,
  cause: unknown,
  what = 'a body that is not valid JSON',
) {
  return {
    code: API_ERROR_CODES.badResponse,
    status: response.status,
    method: request.method,
    url: request.url,
    body: response.body,
    requestId: requestIdOf(response, undefined),
    message: `${request.method} ${request.url} answered ${response.status} with ${what} (${API_ERROR_CODES.badResponse})`,
    cause,
    secrets: request.secrets,
  };
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ERR_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** Failures that prove the request never reached the server, so even a write may be sent again. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const NOT_SENT_TIMEOUT_EVENTS = new Set(['lookup', 'connect', 'secureConnect']);

export interface NetworkErrorFacts {
  code: string | undefined;
  /** got's TimeoutError names the phase that timed out. */
  timeoutEvent?: string;
}

/** A connection-level failure (no HTTP status): retriable network or timeout error. */
export function errorFromNetwork(
  error: unknown,
  facts: NetworkErrorFacts,
  request: RequestDescription,
): RetriableApiError {
  const isTimeout = facts.timeoutEvent !== undefined || (facts.code !== undefined && TIMEOUT_CODES.has(facts.code));
  const code = isTimeout ? API_ERROR_CODES.timeout : API_ERROR_CODES.network;
  const what = isTimeout
    ? `timed out${facts.timeoutEvent ? ` (${facts.timeoutEvent})` : ''}`
    : `failed: ${facts.code ?? 'network error'}`;
  const notSent =
    (facts.code !== undefined && NOT_SENT_CODES.has(facts.code)) ||
    (facts.timeoutEvent !== undefined && NOT_SENT_TIMEOUT_EVENTS.has(facts.timeoutEvent));
  return new RetriableApiError({
    code,
    method: request.method,
    url: request.url,
    message: `${request.method} ${request.url} ${what} (${code})`,
    cause: error,
    notSent,
    secrets: request.secrets,
  });
}
