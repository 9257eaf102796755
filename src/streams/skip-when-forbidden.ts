import { API_ERROR_CODES, hintFor } from '../api/index.js';
import { isForbidden } from './api-error-status.js';

/** Warning code of a stream skipped without failing the run. */
export const STREAM_SKIPPED = 'STREAM_SKIPPED';

export interface StreamSkip {
  code: typeof STREAM_SKIPPED;
  message: string;
}

/*
 * Business hours and holidays: "All ten of their operations are PAT only" (API
 * document, Other operations), so a partner-issued token gets 403 on the reads
 * too (Authentication rule 3).
 */
const PAT_ONLY = 'its operations accept only a personal access token; a partner-issued token is refused';

/**
 * Streams that a 403 skips instead of failing the run: a token's kind or scope
 * decides what it may read (API document, Authentication rules 3, 5 and 7), and
 * a sync of what it may read is still worth finishing. The endpoint each reads,
 * and why a 403 comes when the API document says.
 */
export const SKIPPED_ON_403 = {
  users: { endpoint: 'GET /settings/users', why: 'the token lacks scope users:read' },
  business_hours: { endpoint: 'GET /business-hours', why: PAT_ONLY },
  holidays: { endpoint: 'GET /holidays', why: PAT_ONLY },
  reports: { endpoint: 'GET /reports/{inbox_id}/productivity', why: undefined },
} as const;

export type SkippableStream = keyof typeof SKIPPED_ON_403;

export function isSkippedOn403(stream: string): stream is SkippableStream {
  return Object.hasOwn(SKIPPED_ON_403, stream);
}

/** The status table's words for a 403, for a stream the API document gives no reason of its own for. */
export function forbiddenReason(error: unknown): string | undefined {
  return hintFor(error, { generic: [API_ERROR_CODES.forbidden] });
}

/**
 * The warning that skips a stream whose endpoint answered 403. Such a 403
 * answers the same on every run, so the message names the setting that stops
 * asking: the config's `streams:` list.
 */
export function forbiddenSkip(stream: SkippableStream, error: unknown): StreamSkip {
  const { endpoint, why } = SKIPPED_ON_403[stream];
  return {
    code: STREAM_SKIPPED,
    message:
      `${stream} skipped: ${endpoint} answered 403 (${why ?? forbiddenReason(error)}); the run goes on without it. ` +
      `If this token is not meant to read it, leave ${stream} out of \`streams:\` in the config.`,
  };
}

/** A `skipOn` for streams read in one listing: a 403 skips the stream, anything else fails the run. */
export function skipWhenForbidden(stream: SkippableStream) {
  return (error: unknown): StreamSkip | undefined => (isForbidden(error) ? forbiddenSkip(stream, error) : undefined);
}
