import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
}

export interface StandInRequest {
  method: string;
  key: string;
  status: number;
  /** The access key id the request was signed with (signatures are not checked). */
  accessKey?: string;
}

/** A request matching a hold waits until the hold is released. */
export interface Hold {
  matches(method: string, key: string): boolean;
  waiting: Array<() => void>;
  /** Released once this many requests wait (then every later match passes at once). */
  until?: number;
  released: boolean;
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/**
 * A small S3-compatible stand-in: PUT, GET, HEAD and DELETE of objects in
 * path-style URLs (`/bucket/key`), with ETags and the conditional headers
 * `If-None-Match: *` and `If-Match: <etag>` on PUT and `If-Match` on DELETE.
 *
 * It exists because the state lock and the state's ETag guard rely on
 * conditional writes, which s3rver accepts but ignores (it overwrites
 * regardless), so only a server that honours them can show that of two
 * writers exactly one wins. Each request is decided synchronously once its body
 * has arrived, as one atomic compare-and-set, as S3 does. Signatures are not
 * checked. Tests can also hold chosen requests (to line two processes up at one
 * point), backdate an object and write one directly.
 */
export class ConditionalS3Server {
  readonly objects = new Map<string, StandInObject>();
  readonly seen: StandInRequest[] = [];
  private readonly holds = new Set<Hold>();
  private server: Server | undefined;
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const hold of this.holds) this.release(hold);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** `bucket/key` → object. */
  get(path: string): StandInObject | undefined {
    return this.objects.get(path);
  }

  /** Writes an object directly, as another party would, and returns its ETag. */
  put(path: string, body: Buffer | string, lastModified = new Date()): string {
    const bytes = Buffer.from(body);
    const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    this.objects.set(path, { body: bytes, etag, lastModified });
    return etag;
  }

  /** Holds requests for which `matches` holds; released by release() or once `until` of them wait. */
  hold(matches: (method: string, key: string) => boolean, until?: number): Hold {
    const hold: Hold = { matches, waiting: [], until, released: false };
    this.holds.add(hold);
    return hold;
  }

  release(hold: Hold): void {
    hold.released = true;
    this.holds.delete(hold);
    for (const go of hold.waiting.splice(0)) go();
  }

  /** Resolves once `hold` has at least `n` requests waiting (polled on the event loop, bounded). */
  async waitForHeld(hold: Hold, n = 1, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (hold.waiting.length < n && !hold.released) {
      if (Date.now() > deadline) throw new Error(`no request reached the hold within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = req.method ?? '';
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    for (const hold of this.holds) {
      if (!hold.matches(method, key)) continue;
      await new Promise<void>((resolve) => {
        hold.waiting.push(resolve);
        if (hold.until !== undefined && hold.waiting.length >= hold.until) this.release(hold);
      });
    }
    const accessKey = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
    const entry: StandInRequest = { method, key, status: 0, ...(accessKey ? { accessKey } : {}) };
    this.seen.push(entry);
    const send = (status: number, headers: Record<string, string>, body?: Buffer | string) => {
      entry.status = status;
      res.writeHead(status, headers);
      res.end(method === 'HEAD' ? undefined : body);
    };
    const fail = (status: number, code: string) =>
      send(status, { 'content-type': 'application/xml' }, xmlError(code, code));
    const current = this.objects.get(key);
    const ifMatch = req.headers['if-match'];
    const ifNoneMatch = req.headers['if-none-match'];
    if (method === 'PUT') {
      if (ifNoneMatch === '*' && current) return fail(412, 'PreconditionFailed');
      if (ifMatch !== undefined && !current) return fail(404, 'NoSuchKey');
      if (ifMatch !== undefined && ifMatch !== current!.etag) return fail(412, 'PreconditionFailed');
      const etag = this.put(key, Buffer.concat(chunks));
      return send(200, { etag });
    }
    if (method === 'GET' || method === 'HEAD') {
      if (!current) return fail(404, 'NoSuchKey');
      return send(
        200,
        {
          etag: current.etag,
          'last-modified': current.lastModified.toUTCString(),
          'content-length': String(current.body.length),
          'content-type': 'application/octet-stream',
        },
        current.body,
      );
    }
    if (method === 'DELETE') {
      if (ifMatch !== undefined && !current) return fail(404, 'NoSuchKey');
      if (ifMatch !== undefined && ifMatch !== current!.etag) return fail(412, 'PreconditionFailed');
      this.objects.delete(key);
      return send(204, {});
    }
    return fail(405, 'MethodNotAllowed');
  }
}
