import http from 'node:http';
import https from 'node:https';
import got, { type Got, RequestError, TimeoutError } from 'got';
import { errorFromNetwork, type RawResponse } from '../errors/error-from-response.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpTransportOptions {
  token: string;
  userAgent: string;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** Sockets kept per host; the queue's concurrency is enough. */
  maxSockets: number;
  /**
   * The local address connections go out from (one of the machine's addresses): the API's
   * budget is per client IP (Limits: api.global), so each address is a budget of its own.
   * @default the system's choice
   */
  localAddress?: string;
}

export interface HttpAttempt {
  method: HttpMethod;
  /** Absolute URL. */
  url: string;
  json?: unknown;
}

/** One got instance: bearer auth, JSON, timeouts; no retries (the queue owns them), no redirects. */
export interface HttpTransport {
  send(attempt: HttpAttempt, signal: AbortSignal): Promise<RawResponse>;
  close(): void;
}

/**
 * got with every policy of its own turned off: `retry.limit: 0` (RequestQueue
 * retries), `throwHttpErrors: false` (errorFromResponse maps statuses), no
 * redirects (a redirect could carry the Authorization header elsewhere), and
 * the body read as text so a malformed JSON body becomes a typed error.
 */
export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  };
  const agent = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const client: Got = got.extend({
    headers: {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
      'user-agent': options.userAgent,
    },
    agent,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
    timeout: {
      lookup: options.connectTimeoutMs,
      connect: options.connectTimeoutMs,
      secureConnect: options.connectTimeoutMs,
      response: options.responseTimeoutMs,
      // The whole exchange, body included, is bounded too.
      request: options.connectTimeoutMs + options.responseTimeoutMs,
    },
  });
  const secrets = [options.token];

  return {
    async send(attempt, signal) {
      try {
        const response = await client(attempt.url, {
          method: attempt.method,
          signal,
          ...(attempt.json === undefined ? {} : { json: attempt.json }),
        });
        return { status: response.statusCode, headers: response.headers, body: response.body };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const code = error instanceof RequestError ? error.code : (error as { code?: string }).code;
        const timeoutEvent = error instanceof TimeoutError ? error.event : undefined;
        throw errorFromNetwork(error, { code, timeoutEvent }, { method: attempt.method, url: attempt.url, secrets });
      }
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
