import { connect } from 'node:net';
import { HelpdeskSyncError } from '../errors.js';

/**
 * The API's host took no connection. Its codes are the API client's for the
 * same failures (API_NETWORK, API_TIMEOUT), so it is explained alike; `url` is
 * the base URL, without credentials.
 */
export class HostUnreachableError extends HelpdeskSyncError {
  readonly code: 'API_NETWORK' | 'API_TIMEOUT';
  readonly url: string;

  constructor(url: string, code: 'API_NETWORK' | 'API_TIMEOUT', reason: string, options?: { cause?: unknown }) {
    const safe = new URL(url);
    safe.username = '';
    safe.password = '';
    super(`cannot connect to ${safe.host}: ${reason}`, options);
    this.code = code;
    this.url = safe.toString();
  }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens on that port)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the connection was reset',
  EADDRNOTAVAIL: 'source.local_address is not an address of this machine',
};

/**
 * Opens and closes one TCP connection to the host and port of `baseUrl`: the
 * first thing `check` asks of the API, so a host that is down, mistyped or
 * firewalled is said within `timeoutMs` rather than after the request queue's
 * retries and their backoff (which suit a sync meeting a blip, not a first look).
 */
export function reachHost(baseUrl: string, options: { timeoutMs: number; localAddress?: string }): Promise<void> {
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new HostUnreachableError(baseUrl, 'API_TIMEOUT', `no connection within ${options.timeoutMs / 1000}s`));
    }, options.timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const reason = (error.code && REASONS[error.code]) ?? error.message;
      reject(new HostUnreachableError(baseUrl, 'API_NETWORK', reason, { cause: error }));
    });
  });
}
