import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthStatus {
  healthy: boolean;
  /** Why it is not healthy, or "ok". */
  reason: string;
}

export interface MetricsServerOptions {
  /** `host:port` as in `metrics.listen` (host may be a bracketed IPv6 address). */
  listen: string;
  registry: Registry;
  health: () => HealthStatus;
  /** The status page served at `/` (HTML); absent: `/` is 404. */
  statusPage?: () => string;
}

export interface MetricsServer {
  /** The bound address, `host:port` with the real port when 0 was asked. */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /healthz` (200 or 503, for liveness probes), `GET /metrics`
 * (Prometheus text format) and the status page at `/`. node:http is enough for
 * three read-only routes, and keeps the daemon free of a web framework.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { host, port } = splitListen(options.listen);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      const health = options.health();
      res
        .writeHead(health.healthy ? 200 : 503, { 'content-type': 'application/json' })
        .end(`${JSON.stringify({ status: health.healthy ? 'ok' : 'unhealthy', reason: health.reason })}\n`);
      return;
    }
    if (path === '/favicon.ico' && options.statusPage) {
      // A browser asks for it beside the status page; no icon, and no 404 in its console.
      res.writeHead(204).end();
      return;
    }
    if (path === '/' && options.statusPage) {
      let html: string;
      try {
        html = options.statusPage();
      } catch {
        res.writeHead(500).end();
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(req.method === 'HEAD' ? undefined : html);
      return;
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404).end();
  });
  // A probe must never keep the daemon from exiting after SIGTERM.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function splitListen(listen: string): { host: string; port: number } {
  const colon = listen.lastIndexOf(':');
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(listen.slice(colon + 1)) };
}
