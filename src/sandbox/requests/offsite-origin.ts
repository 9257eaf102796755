import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request that reached the other origin: whether it carried a token, never the token itself. */
export interface OffsiteRequest {
  method: string;
  url: string;
  authorized: boolean;
}

export interface OffsiteOrigin {
  /** e.g. http://127.0.0.1:41235: the sandbox's host on another port, so another origin. */
  readonly origin: string;
  /** What reached it, oldest first: a client that refuses the redirect sends nothing here. */
  received(): OffsiteRequest[];
  close(): Promise<void>;
}

/**
 * offsite-redirect: the other origin GET /v1/holidays is sent to. It answers
 * every request as the holiday list would (`200 []`), as a mirror or an old
 * host might, so a client that followed would seem to succeed; what tells is
 * the record of what reached it, and whether it carried an Authorization header.
 */
export async function startOffsiteOrigin(host: string): Promise<OffsiteOrigin> {
  const seen: OffsiteRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorized: req.headers.authorization !== undefined });
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const name = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${name}:${address.port}`,
    received: () => seen.map((r) => ({ ...r })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
