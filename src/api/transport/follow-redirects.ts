import { headerValue, type RawResponse, type RequestDescription } from '../errors/error-from-response.js';
import { API_ERROR_CODES, FatalApiError } from '../errors/errors.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Redirects one read may follow before it is refused: a deployment adds one or two (a slash, a host alias). */
export const MAX_REDIRECTS = 5;

export function isRedirect(status: number): boolean {
  return REDIRECTS.has(status);
}

export interface FollowRedirectsOptions {
  /** The only origin the token goes to: the configured base URL's. */
  origin: string;
  /** What errors and the log name the request by (method, token-free URL, secrets to redact). */
  request: RequestDescription;
  /** Told once per redirect followed. */
  onFollow?: (from: string, to: string, status: number) => void;
}

/**
 * Sends a read and follows its redirects: the same method and body again at the
 * Location, when it is on the configured origin (a read has no effect to
 * repeat; a deployment may move `/v1/inboxes` to `/v1/inboxes/`). Every hop is
 * its own request through the queue (`send`), so it is paced and counted like
 * any other. A Location on another origin is refused before anything is sent
 * there: the token travels in a header of every request, and a host we were not
 * configured with never gets it. A loop (a URL met twice), more than
 * MAX_REDIRECTS hops, or a redirect without a Location is refused too. Writes
 * never come here: their 3xx stays an error (the queue's API_HTTP).
 */
export async function followRedirects(
  first: string,
  send: (url: string) => Promise<RawResponse>,
  o: FollowRedirectsOptions,
): Promise<RawResponse> {
  const visited = [first];
  let url = first;
  for (;;) {
    const response = await send(url);
    if (!isRedirect(response.status)) return response;
    const next = nextHop(response, url, visited, o);
    o.onFollow?.(url, next, response.status);
    visited.push(next);
    url = next;
  }
}

function nextHop(response: RawResponse, from: string, visited: string[], o: FollowRedirectsOptions): string {
  const location = headerValue(response.headers, 'location');
  if (location === undefined || location.trim() === '') return refuse(o, response, 'without a Location header');
  let target: URL;
  try {
    target = new URL(location.trim(), from);
  } catch {
    return refuse(o, response, 'to a Location that is not a URL');
  }
  target.hash = '';
  if (target.origin !== o.origin) {
    return refuse(
      o,
      response,
      `to another origin (${target.origin}): refused, the token is only ever sent to ${o.origin} (source.base_url)`,
    );
  }
  const next = target.toString();
  if (visited.includes(next)) return refuse(o, response, `back to ${target.pathname}${target.search}: a redirect loop`);
  if (visited.length > MAX_REDIRECTS) return refuse(o, response, `more than ${MAX_REDIRECTS} times in a row`);
  return next;
}

function refuse(o: FollowRedirectsOptions, response: RawResponse, why: string): never {
  const { method, url, secrets } = o.request;
  throw new FatalApiError({
    code: API_ERROR_CODES.redirect,
    status: response.status,
    method,
    url,
    secrets,
    message: `${method} ${url} was redirected (${response.status}) ${why} (${API_ERROR_CODES.redirect})`,
  });
}
