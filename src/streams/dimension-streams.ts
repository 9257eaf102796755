import { fullRefreshStream } from './full-refresh-stream.js';
import { SCOPES } from './scopes.js';
import { skipWhenForbidden } from './skip-when-forbidden.js';

/** GET /inboxes: shape not shown in the API document, any list envelope is accepted. */
export const inboxesStream = fullRefreshStream({
  name: 'inboxes',
  table: 'inboxes',
  scope: SCOPES.inboxes,
  list: (ctx) => ctx.api.listInboxes({ signal: ctx.signal }),
});

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
  skipOn: skipWhenForbidden('users'),
});

/** GET /business-hours: every profile, unpaginated (API document, Other operations); PAT only, like users on 403. */
export const businessHoursStream = fullRefreshStream({
  name: 'business_hours',
  table: 'business_hours',
  scope: SCOPES.business_hours,
  list: (ctx) => ctx.api.listBusinessHours({ signal: ctx.signal }),
  skipOn: skipWhenForbidden('business_hours'),
});

/** GET /holidays: every holiday, unpaginated. */
export const holidaysStream = fullRefreshStream({
  name: 'holidays',
  table: 'holidays',
  scope: SCOPES.holidays,
  list: (ctx) => ctx.api.listHolidays({ signal: ctx.signal }),
  skipOn: skipWhenForbidden('holidays'),
});
