import { parseJsonExact } from '../../exact-json/parse-json-exact.js';
import {
  type RawResponse,
  type RequestDescription,
  unparseableBodyError,
  wrongShapeError,
} from '../errors/error-from-response.js';
import type { ApiError } from '../errors/errors.js';
import type { ShapeCheck } from './shape-problem.js';

/**
 * The body check of one read (GET, POST /search), run by the queue on every 2xx
 * before it hands the response back (QueuedRequest.checkBody), so a body that
 * is cut short, not JSON, or JSON of the wrong shape is retried like a 5xx and
 * counted in the retries. Each body is parsed once: the check keeps what it
 * parsed for `value`. Integers stay exact: the API document types `ticket_id`
 * as `integer` with no bound (Resources and their fields, Conversation), so one
 * beyond 2^53 is read as a bigint (parse-json-exact.ts).
 */
export class JsonBodyReader {
  readonly #parsed = new WeakMap<RawResponse, unknown>();

  constructor(
    private readonly request: RequestDescription,
    private readonly shape: ShapeCheck | undefined,
  ) {}

  /** The error that retries this answer from `url`, or undefined when its body is usable. */
  check(response: RawResponse, url: string): ApiError | undefined {
    const request = { ...this.request, url };
    let body: unknown;
    try {
      body = parseJsonExact(response.body);
    } catch {
      // Empty, cut short, an HTML page: the error says which (and keeps the parser's reason).
      return unparseableBodyError(response, request);
    }
    const why = this.shape?.(body);
    if (why !== undefined) return wrongShapeError(response, request, why);
    this.#parsed.set(response, body);
    return undefined;
  }

  /** The parsed body of a response the check passed. */
  value(response: RawResponse): unknown {
    return this.#parsed.has(response) ? this.#parsed.get(response) : parseJsonExact(response.body);
  }
}
