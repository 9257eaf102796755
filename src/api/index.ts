/**
 * The front door of the API layer: the layers above import from here, never from
 * a room inside. Behind it:
 * - `transport/`: one got instance sending one attempt over the wire;
 * - `queue/`: the one request queue of the process, its pacing and 429 handling
 *   (`queue/rate-limit/`) and its retries of 5xx, resets and timeouts;
 * - `errors/`: the typed errors, the table from HTTP status to code and hint, the
 *   error built from a response, and the redaction of secrets in them;
 * - `endpoints/`: the typed calls of the API document and their pagination;
 * - `create-api-client.ts` and `client-from-config.ts` put them together;
 *   `queue-pool.ts` gives the accounts of a process one queue per origin and address.
 */
export { apiClientFromConfig } from './client-from-config.js';
export type { ApiClient } from './create-api-client.js';
export {
  type ApiObject,
  type BusinessHoursWrite,
  type CallOptions,
  type HelpdeskApi,
  type HolidayWrite,
  type ListOptions,
  type ListRepair,
  type PageInfo,
  type PageSkip,
  type ReadRequest,
  type RequestStats,
  WEEKDAYS,
  type Weekday,
} from './endpoints/types.js';
export { API_ERROR_CODES, type ApiError, type ApiErrorCode, isApiError } from './errors/errors.js';
export { apiErrorCodeOf, type HintContext, hintFor } from './errors/status-table.js';
export type { RateSpend } from './queue/rate-limit/rate-spend.js';
export type { RequestQueue } from './queue/request-queue.js';
export { requestStatsSince } from './queue/request-stats-since.js';
export { QueuePool } from './queue-pool.js';
