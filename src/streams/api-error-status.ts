import { API_ERROR_CODES, apiErrorCodeOf } from '../api/index.js';

/*
 * Read from the error's `code` (or its `status`, through the API layer's status
 * table) rather than by class, so streams depend only on the HelpdeskApi
 * contract and on plain data.
 */

/** 403: the token lacks the scope or the user lacks access (API document, Authentication rule 7). */
export function isForbidden(error: unknown): boolean {
  return apiErrorCodeOf(error) === API_ERROR_CODES.forbidden;
}

/** 404: absent or in another organization (API document, Authentication rule 8). */
export function isNotFound(error: unknown): boolean {
  return apiErrorCodeOf(error) === API_ERROR_CODES.notFound;
}

/**
 * A 200 whose body stayed unreadable (cut short, not JSON, or JSON of the wrong
 * shape) after the API layer's retries: the object it belongs to (a thread, a
 * page, a report day, a list) is skipped for this run and asked again by the next.
 */
export function isUnreadable(error: unknown): boolean {
  return apiErrorCodeOf(error) === API_ERROR_CODES.badResponse;
}
