import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of the sandbox that can hold every request: a run
 * pointed at it stops at its first API call, after it took the state lock, so
 * a second process can meet that lock without any timing assumption.
 */
export class HoldingProxy {
  holding = true;
  private readonly waiting: Array<() => void> = [];
  private server: Server | undefined;
  baseUrl = '';

  constructor(private readonly upstream: string) {}

  async start(): Promise<void> {
    const target = new URL(this.upstream);
    this.server = createServer((req, res) => {
      const forward = () => {
        const up = request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        up.on('error', () => res.destroy());
        req.pipe(up);
      };
      if (this.holding) this.waiting.push(forward);
      else forward();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Resolves once a request waits (bounded). */
  async waitForRequest(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.waiting.length === 0) {
      if (Date.now() > deadline) throw new Error(`no request reached the proxy within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  releaseAll(): void {
    this.holding = false;
    for (const go of this.waiting.splice(0)) go();
  }

  async stop(): Promise<void> {
    this.releaseAll();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
