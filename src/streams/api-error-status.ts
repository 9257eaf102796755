import { API_ERROR_CODES } from '../api/errors.js';

/**
 * HTTP status of an error thrown by the API layer. Read from the `status`
 * property (ApiError of src/api/errors.ts) rather than by class, so streams
 * depend only on the HelpdeskApi contract and on plain data.
 */
export function apiErrorStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/** 403: the token lacks the scope or the user lacks access (API document, Authentication rule 7). */
export function isForbidden(error: unknown): boolean {
  return apiErrorStatus(error) === 403 || (error as { code?: unknown } | null)?.code === API_ERROR_CODES.forbidden;
}

/** 404: absent or in another organization (API document, Authentication rule 8). */
export function isNotFound(error: unknown): boolean {
  return apiErrorStatus(error) === 404 || (error as { code?: unknown } | null)?.code === API_ERROR_CODES.notFound;
}
