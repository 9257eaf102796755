import { API_ERROR_CODES } from '../api/errors.js';
import { type HintContext, hintFor } from '../api/status-table.js';
import { isForbidden } from './api-error-status.js';
import { fullRefreshStream } from './full-refresh-stream.js';
import { SCOPES } from './scopes.js';

/** Warning code of a stream skipped without failing the run. */
export const STREAM_SKIPPED = 'STREAM_SKIPPED';

/** GET /inboxes: shape not shown in the API document, any list envelope is accepted. */
export const inboxesStream = fullRefreshStream({
  name: 'inboxes',
  table: 'inboxes',
  scope: SCOPES.inboxes,
  list: (ctx) => ctx.api.listInboxes({ signal: ctx.signal }),
});

/** Why the users stream is skipped, in its own terms: the scope this endpoint needs. */
const USERS_HINTS: HintContext = { own: { [API_ERROR_CODES.forbidden]: 'the token lacks scope users:read' } };

/**
 * GET /settings/users needs scope users:read (API document, Authentication
 * rule 5); a token without it gets 403. That skips this stream with a warning,
 * it does not fail the run (docs/streams.md), and tombstones nothing.
 */
export const usersStream = fullRefreshStream({
  name: 'users',
  table: 'users',
  scope: SCOPES.users,
  list: (ctx) => ctx.api.listUsers({ signal: ctx.signal }),
  skipOn: (error) =>
    isForbidden(error)
      ? {
          code: STREAM_SKIPPED,
          message: `users skipped: GET /settings/users answered 403 (${hintFor(error, USERS_HINTS)})`,
        }
      : undefined,
});

/** GET /business-hours: every profile, unpaginated (API document, Other operations). */
export const businessHoursStream = fullRefreshStream({
  name: 'business_hours',
  table: 'business_hours',
  scope: SCOPES.business_hours,
  list: (ctx) => ctx.api.listBusinessHours({ signal: ctx.signal }),
});

/** GET /holidays: every holiday, unpaginated. */
export const holidaysStream = fullRefreshStream({
  name: 'holidays',
  table: 'holidays',
  scope: SCOPES.holidays,
  list: (ctx) => ctx.api.listHolidays({ signal: ctx.signal }),
});
