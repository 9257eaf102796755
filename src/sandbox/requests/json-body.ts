import type { FastifyInstance } from 'fastify';
import { jsonText } from '../protocol/json-text.js';

export const MALFORMED_JSON_MESSAGE = 'The request body is not valid JSON.';

/**
 * JSON bodies: an empty body reads as "no body" (restore accepts an optional
 * empty body, API document, Endpoints), malformed JSON is a 400 with a
 * `{message}` body (API document, Errors rule 1; the status is the sandbox's choice).
 * Requests are application/json (API document, rule 1): other media types get 415.
 * Answers are written by jsonText, so an integer beyond 2^53 (big-integers) goes
 * out as its exact digits.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.setReplySerializer((payload) => jsonText(payload));
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error(MALFORMED_JSON_MESSAGE), { statusCode: 400 }), undefined);
    }
  });
}
