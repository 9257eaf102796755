import { isIP } from 'node:net';
import type { Clock } from '../clock.js';
import { baseUrlProblems } from '../config/base-url-rules.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { parseJsonExact } from '../exact-json/parse-json-exact.js';
import { type Logger, silentLogger } from '../log.js';
import { registerSecret } from '../redact.js';
import { VERSION } from '../version.js';
import { type ApiCall, type ApiCaller, createHelpdeskApi, type Query } from './endpoints/helpdesk-api.js';
import { JsonBodyReader } from './endpoints/read-json-body.js';
import type { HelpdeskApi, RequestStats } from './endpoints/types.js';
import { badResponseError, type RawResponse } from './errors/error-from-response.js';
import { OptionChecker } from './queue/check-options.js';
import type { RateSpend } from './queue/rate-limit/rate-spend.js';
import { RequestQueue, type RequestQueueOptions, type RetryOptions } from './queue/request-queue.js';
import { queueOptionIssues } from './queue/resolve-queue-options.js';
import { followRedirects } from './transport/follow-redirects.js';
import { createHttpTransport } from './transport/http-transport.js';

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
  /** What an earlier process of this deployment spent of the rate window (the client's own queue starts from it). */
  priorSpend?: RateSpend;
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
   * The local address connections go out from (`source.local_address`): each of the machine's
   * addresses is a budget of its own (Limits: api.global is keyed by client IP). @default the system's choice
   */
  localAddress?: string;
  /**
   * The account this client sends for, when several share `queue`: its requests wait in
   * a lane of their own, and slots go to lanes in proportion to their weights
   * (queue/fair-lanes.ts; `accounts[].share`). @default one lane for every request
   */
  lane?: { name: string; weight: number };
  /**
   * The process-wide queue to share (one per process, docs/rate-limits.md). When given,
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

/** Where the API is and how to authenticate; collected into `c`. */
function checkConnection(o: ApiClientOptions, c: OptionChecker): URL | undefined {
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
  if (o.localAddress !== undefined && isIP(o.localAddress) === 0) {
    c.add(
      'localAddress',
      `Expected \`localAddress\` to be an IP address of this machine, got \`${String(o.localAddress)}\``,
    );
  }
  if (o.lane !== undefined && !(Number.isFinite(o.lane.weight) && o.lane.weight > 0)) {
    c.add('lane', `Expected \`lane.weight\` to be a number above 0, got \`${String(o.lane.weight)}\``);
  }
  if (typeof o.token !== 'string' || o.token.trim() === '') c.add('token', 'Expected `token` to be a non-empty string');
  else if (/[\s]/.test(o.token)) c.add('token', 'Expected `token` without whitespace or line breaks');
  return url;
}

/** The options of the queue the client builds when it is given none. */
function queueOptionsOf(o: ApiClientOptions): RequestQueueOptions {
  return {
    requestsPerMinute: o.requestsPerMinute,
    concurrency: o.concurrency,
    rateWindowSeconds: o.rateWindowSeconds,
    priorSpend: o.priorSpend,
    retry: o.retry,
    clock: o.clock,
    logger: o.logger,
  };
}

/** The numbers: timeouts, and the rate and retry options of the client's own queue. */
function limitIssues(o: ApiClientOptions): ConfigIssue[] {
  const c = new OptionChecker();
  c.number('connectTimeoutMs', o.connectTimeoutMs, 1, { integer: true });
  c.number('responseTimeoutMs', o.responseTimeoutMs, 1, { integer: true });
  return o.queue === undefined ? [...c.issues, ...queueOptionIssues(queueOptionsOf(o))] : c.issues;
}

/**
 * Builds the API client: a got transport (bearer auth, JSON, timeouts, user
 * agent), the process's RequestQueue, and the typed endpoint functions. Every
 * option is checked first, each problem listed in one ConfigError.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  return openClient(options, limitIssues(options));
}

/**
 * The client of options whose numbers were checked where they entered:
 * apiClientFromConfig's come from the config, whose schema holds the same
 * bounds, so they are not checked twice. The base URL and token are checked
 * whoever built the options: an insecure URL is refused here too.
 */
export function buildApiClient(options: ApiClientOptions): ApiClient {
  return openClient(options, []);
}

function openClient(options: ApiClientOptions, limitProblems: ConfigIssue[]): ApiClient {
  const c = new OptionChecker();
  const base = checkConnection(options, c) as URL;
  const issues = [...c.issues, ...limitProblems];
  if (issues.length > 0) throw new ConfigError('API client options', issues);
  registerSecret(options.token);
  const logger = options.logger ?? silentLogger();
  const ownQueue = options.queue === undefined;
  const queue = options.queue ?? new RequestQueue({ ...queueOptionsOf(options), logger });
  if (options.lane) queue.setLaneWeight(options.lane.name, options.lane.weight);
  const transport = createHttpTransport({
    token: options.token,
    userAgent: options.userAgent ?? `helpdesk-sync/${VERSION}`,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    responseTimeoutMs: options.responseTimeoutMs ?? 60_000,
    maxSockets: queue.concurrency,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
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
          ...(options.lane ? { lane: options.lane.name } : {}),
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
        return parseJsonExact(response.body);
      } catch (error) {
        throw badResponseError(response, request, error);
      }
    },
  };

  return {
    api: createHelpdeskApi(caller, { conversationsEndpoint: options.conversationsEndpoint }),
    queue,
    // An account sharing the queue counts its own requests, not its neighbours'.
    stats: () => queue.stats(options.lane?.name),
    drain: () => queue.drain(),
    close() {
      if (ownQueue) queue.close();
      transport.close();
    },
  };
}
