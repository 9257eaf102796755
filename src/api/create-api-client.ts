import type { Clock } from '../clock.js';
import { baseUrlProblems } from '../config/base-url-rules.js';
import { ConfigError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { registerSecret } from '../redact.js';
import { VERSION } from '../version.js';
import { OptionChecker } from './check-options.js';
import { badResponseError, type RawResponse } from './error-from-response.js';
import { followRedirects } from './follow-redirects.js';
import { type ApiCall, type ApiCaller, createHelpdeskApi, type Query } from './helpdesk-api.js';
import { createHttpTransport } from './http-transport.js';
import { JsonBodyReader } from './read-json-body.js';
import { RequestQueue, type RetryOptions } from './request-queue.js';
import type { HelpdeskApi, RequestStats } from './types.js';

export interface ApiClientOptions {
  /** API base URL ending in the version prefix, e.g. `https://api.example.com/v1` (Versioning rule 1). */
  baseUrl: string;
  /** Personal access token, sent as `Authorization: Bearer <token>` (Authentication rule 1). Never logged. */
  token: string;
  /** Requests per minute for this process. @default 300 (api.global, see Limits) */
  requestsPerMinute?: number;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Length of the server's fixed rate window in seconds. @default learned from the server's headers */
  rateWindowSeconds?: number;
  /** Allow plain http:// to a host that is not loopback. @default false */
  allowInsecureHttp?: boolean;
  /** Milliseconds to wait for a connection. @default 10000 */
  connectTimeoutMs?: number;
  /** Milliseconds to wait for the response headers. @default 60000 */
  responseTimeoutMs?: number;
  logger?: Logger;
  /** @default `helpdesk-sync/<version>` */
  userAgent?: string;
  /** What `api.listConversations()` reads. @default 'search' */
  conversationsEndpoint?: 'search' | 'mine';
  /** Time source of the queue (pacing, pauses, backoff); a fake in tests. @default the system clock */
  clock?: Clock;
  retry?: RetryOptions;
  /**
   * The process-wide queue to share (one per process, docs/operations.md). When given,
   * the rate, concurrency, clock and retry options above are the queue's, not these.
   * @default a queue owned by this client
   */
  queue?: RequestQueue;
}

export interface ApiClient {
  api: HelpdeskApi;
  queue: RequestQueue;
  stats(): RequestStats;
  /** Waits until every request handed in so far has settled. */
  drain(): Promise<void>;
  /** Aborts what is queued or in flight (when the queue is this client's) and frees the sockets. */
  close(): void;
}

function checkClientOptions(o: ApiClientOptions): URL | undefined {
  const c = new OptionChecker();
  let url: URL | undefined;
  try {
    url = new URL(o.baseUrl);
  } catch {
    c.add(
      'baseUrl',
      `Expected \`baseUrl\` to be an absolute URL such as https://api.example.com/v1, got \`${String(o.baseUrl)}\``,
    );
  }
  for (const problem of url ? baseUrlProblems(url, o.allowInsecureHttp === true) : []) c.add('baseUrl', problem);
  if (typeof o.token !== 'string' || o.token.trim() === '') c.add('token', 'Expected `token` to be a non-empty string');
  else if (/[\s]/.test(o.token)) c.add('token', 'Expected `token` without whitespace or line breaks');
  c.number('connectTimeoutMs', o.connectTimeoutMs, 1, { integer: true });
  c.number('responseTimeoutMs', o.responseTimeoutMs, 1, { integer: true });
  if (c.issues.length > 0) throw new ConfigError('API client options', c.issues);
  return url;
}

/**
 * Builds the API client: a got transport (bearer auth, JSON, timeouts, user
 * agent), the process's RequestQueue, and the typed endpoint functions.
 * Refuses an insecure base URL itself, whoever built the options.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = checkClientOptions(options) as URL;
  registerSecret(options.token);
  const logger = options.logger ?? silentLogger();
  const ownQueue = options.queue === undefined;
  const queue =
    options.queue ??
    new RequestQueue({
      requestsPerMinute: options.requestsPerMinute,
      concurrency: options.concurrency,
      rateWindowSeconds: options.rateWindowSeconds,
      retry: options.retry,
      clock: options.clock,
      logger,
    });
  const transport = createHttpTransport({
    token: options.token,
    userAgent: options.userAgent ?? `helpdesk-sync/${VERSION}`,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    responseTimeoutMs: options.responseTimeoutMs ?? 60_000,
    maxSockets: queue.concurrency,
  });
  const root = base.toString().replace(/\/+$/, '');
  const secrets = [options.token];

  const url = (path: string, query?: Query): string => {
    const target = new URL(/^https?:\/\//.test(path) ? path : `${root}${path.startsWith('/') ? '' : '/'}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) target.searchParams.set(k, String(v));
    return target.toString();
  };

  const caller: ApiCaller = {
    url,
    async call(call: ApiCall) {
      const target = url(call.path, call.query);
      const request = { method: call.method, url: target, secrets };
      const idempotent = call.idempotent ?? call.method === 'GET';
      // Only a request that may be sent again gets its body checked before it is handed back
      // (and follows redirects): a write's unusable body stays the fatal error below.
      const reader = idempotent ? new JsonBodyReader(request, call.expect) : undefined;
      const send = (to: string) =>
        queue.request({
          method: call.method,
          url: to,
          secrets,
          idempotent,
          checkBody: reader && ((r) => reader.check(r, to)),
          passRedirects: idempotent,
          signal: call.signal,
          send: (signal) => transport.send({ method: call.method, url: to, json: call.json }, signal),
        });
      if (reader) {
        const onFollow = (from: string, to: string, status: number) =>
          logger.info({ method: call.method, from, to, status }, 'redirect followed (same origin)');
        return reader.value(await followRedirects(target, send, { origin: base.origin, request, onFollow }));
      }
      const response: RawResponse = await send(target);
      if (response.body.trim() === '') return undefined;
      try {
        return JSON.parse(response.body) as unknown;
      } catch (error) {
        throw badResponseError(response, request, error);
      }
    },
  };

  return {
    api: createHelpdeskApi(caller, { conversationsEndpoint: options.conversationsEndpoint }),
    queue,
    stats: () => queue.stats(),
    drain: () => queue.drain(),
    close() {
      if (ownQueue) queue.close();
      transport.close();
    },
  };
}
