import { API_ERROR_CODES, hintFor } from '../api/index.js';
import type { StreamDefinition } from '../catalog/stream-definition.js';
import { describeEndpoint } from '../catalog/stream-definition.js';
import { isForbidden } from './api-error-status.js';

/** Warning code of a stream skipped without failing the run. */
export const STREAM_SKIPPED = 'STREAM_SKIPPED';

export interface StreamSkip {
  code: typeof STREAM_SKIPPED;
  message: string;
}

/** Whether a 403 skips the stream instead of failing the run (its declaration's `forbidden`). */
export function isSkippedOn403(definition: StreamDefinition): boolean {
  return definition.forbidden.effect === 'skip';
}

/** The status table's words for a 403, for a stream the API document gives no reason of its own for. */
export function forbiddenReason(error: unknown): string | undefined {
  return hintFor(error, { generic: [API_ERROR_CODES.forbidden] });
}

/**
 * The warning that skips a stream whose endpoint answered 403, with the reason
 * its declaration gives (else the status table's). Such a 403 answers the same
 * on every run, so the message names the setting that stops asking: the
 * config's `streams:` list.
 */
export function forbiddenSkip(definition: StreamDefinition, error: unknown): StreamSkip {
  const { name, forbidden } = definition;
  const endpoint = 'endpoint' in definition.read ? describeEndpoint(definition.read.endpoint) : name;
  const why = (forbidden.effect === 'skip' ? forbidden.why : undefined) ?? forbiddenReason(error);
  return {
    code: STREAM_SKIPPED,
    message:
      `${name} skipped: ${endpoint} answered 403 (${why}); the run goes on without it. ` +
      `If this token is not meant to read it, leave ${name} out of \`streams:\` in the config.`,
  };
}

/** For a stream read in one listing: the skip a 403 means when its declaration says so; undefined fails the run. */
export function skipOn403(definition: StreamDefinition, error: unknown): StreamSkip | undefined {
  return isSkippedOn403(definition) && isForbidden(error) ? forbiddenSkip(definition, error) : undefined;
}
