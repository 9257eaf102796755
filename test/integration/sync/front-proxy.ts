import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one request: pass it on, answer it itself, or go away for good. */
export type FrontAnswer = 'pass' | { status: number; body: unknown } | 'go-away';

export interface FrontProxy {
  /** The proxy's base URL: configure the connector with it instead of the sandbox's. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of a server, over real sockets, that lets `rule` decide
 * each request: `pass` forwards it (method, path, headers, body) and streams the
 * answer back; an answer object is sent instead (JSON); `go-away` stops listening
 * and drops every connection, this one included, so the host is unreachable from
 * then on (connection refused), as a host taken down mid-run would be.
 */
export async function startFrontProxy(
  target: string,
  rule: (req: IncomingMessage) => FrontAnswer,
): Promise<FrontProxy> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const answer = rule(req);
    if (answer === 'go-away') {
      server.close();
      server.closeAllConnections();
      return;
    }
    if (answer !== 'pass') {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answered) => {
        res.writeHead(answered.statusCode ?? 502, answered.headers);
        answered.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        // Already closed by `go-away`: close() calls back with an error at once, which is fine here.
      }),
  };
}
