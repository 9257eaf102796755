import { API_ERROR_CODES, type ApiErrorCode, apiErrorCodeOf } from '../api/index.js';
import type { StreamName } from '../config/schema.js';

/** Warning code of a stream that failed while the run went on (docs/streams.md, "When a stream fails"). */
export const STREAM_FAILED = 'STREAM_FAILED';

/**
 * How far an error a stream threw reaches:
 * - `stream`: the answer of one endpoint (or of the objects one stream reads); the
 *   other streams ask other endpoints and may well succeed, so that stream fails
 *   and the run goes on, ending `partial`;
 * - `run`: nothing can succeed after it (the token, the host), so the run ends at once;
 * - `by-reach`: a connection-level failure, `run` when it shows the request never
 *   reached the server (connection refused, DNS failure, connect timeout: the
 *   host is unreachable for every stream), else `stream` (a reset or a response
 *   timeout on a request the server had taken: that endpoint's answer).
 */
export type FailureReach = 'stream' | 'run' | 'by-reach';

/**
 * What each API error code means to a run, in one table (the compiler asks for a
 * row per code of the API layer). Any error that is not from the API (the sink,
 * the state, the output, a bug) ends the run, as does an interruption.
 */
export const FAILURE_REACH: Readonly<Record<ApiErrorCode, FailureReach>> = {
  // Authentication rule 6 (Errors: 401): the token is missing, expired or revoked; every request will say so.
  [API_ERROR_CODES.unauthorized]: 'run',
  // Authentication rule 7 (Errors: 403): a scope or an access of one resource. A stream whose declaration
  // skips on 403 never throws it; any other stream fails alone.
  [API_ERROR_CODES.forbidden]: 'stream',
  // Authentication rule 8 (Errors: 404): one endpoint or resource this deployment does not serve.
  [API_ERROR_CODES.notFound]: 'stream',
  // Errors: 409 and 422 answer one request's values or one resource's state.
  [API_ERROR_CODES.conflict]: 'stream',
  [API_ERROR_CODES.validation]: 'stream',
  // Limits: api.global is "keyed by client IP, not by token", over every endpoint: no other stream would fare better.
  [API_ERROR_CODES.rateLimited]: 'run',
  // Errors: 500, "unexpected exception" of the endpoint, still there after the queue's retries.
  [API_ERROR_CODES.server]: 'stream',
  [API_ERROR_CODES.network]: 'by-reach',
  [API_ERROR_CODES.timeout]: 'by-reach',
  // A body that stayed unreadable after the retries, a page link met twice, a redirect refused
  // (another origin: the token stays home), a status the document does not name: one endpoint's answer.
  [API_ERROR_CODES.badResponse]: 'stream',
  [API_ERROR_CODES.paginationLoop]: 'stream',
  [API_ERROR_CODES.redirect]: 'stream',
  [API_ERROR_CODES.http]: 'stream',
};

/** The failure of one stream, as the summary lists it (`failed_streams`). */
export interface StreamFailure {
  /** The error's stable code (API_REDIRECT, API_SERVER, …). */
  code: string;
  /** The error's message: built token-free by the API layer's error constructors. */
  message: string;
}

/** The failure as the summary records it, when the error fails its stream only; undefined when it ends the run. */
export function streamFailure(error: unknown): StreamFailure | undefined {
  const code = apiErrorCodeOf(error);
  if (code === undefined) return undefined;
  const reach = FAILURE_REACH[code];
  const notSent = (error as { notSent?: unknown }).notSent === true;
  if (reach === 'run' || (reach === 'by-reach' && notSent)) return undefined;
  return { code, message: error instanceof Error ? error.message : String((error as { message?: unknown }).message) };
}

/** The warning of a failed stream: what failed, why, and what the run and the next run do about it. */
export function streamFailedWarning(stream: StreamName, failure: StreamFailure): { code: string; message: string } {
  return {
    code: STREAM_FAILED,
    message:
      `${stream} failed (${failure.code}): ${failure.message}; what it committed before the failure is kept, ` +
      'the other streams ran, the next run retries it',
  };
}
