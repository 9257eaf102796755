import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface SeenRequest {
  method: string;
  url: string;
  status: number;
  /** Body bytes sent to the server and received from it (what a request moved). */
  bytesUp: number;
  bytesDown: number;
}

/** Decides whether a request gets an injected failure instead of reaching s3rver. */
export type FaultRule = (req: { method: string; url: string }) => boolean;

/**
 * s3rver on an ephemeral port behind a small HTTP proxy that records every
 * request and can answer chosen ones with a 500 (an injected failure). Headers
 * are forwarded untouched so request signatures still verify.
 */
export class S3TestServer {
  readonly bucket = 'helpdesk-test';
  readonly seen: SeenRequest[] = [];
  fault: FaultRule = () => false;
  private readonly dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  private s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: this.dir,
    silent: true,
    configureBuckets: [{ name: 'helpdesk-test' }],
  });
  private proxy: Server | undefined;
  endpoint = '';

  /** The `destination` config of a sync into this server's bucket (s3rver wants `when_required` checksums). */
  destination(prefix = 'helpdesk', endpoint = this.endpoint) {
    return {
      type: 's3' as const,
      bucket: this.bucket,
      prefix,
      endpoint,
      region: 'us-east-1',
      force_path_style: true,
      checksum: 'when_required' as const,
    };
  }

  async start(): Promise<void> {
    const upstream = await this.s3rver.run();
    this.proxy = createServer((req, res) => {
      const entry: SeenRequest = { method: req.method ?? '', url: req.url ?? '', status: 0, bytesUp: 0, bytesDown: 0 };
      req.on('data', (chunk: Buffer) => {
        entry.bytesUp += chunk.length;
      });
      this.seen.push(entry);
      if (this.fault(entry)) {
        req.resume();
        req.on('end', () => {
          entry.status = 500;
          res.writeHead(500, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>');
        });
        return;
      }
      const headers = { ...req.headers };
      delete headers.expect;
      const forward = request(
        { host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers },
        (up) => {
          entry.status = up.statusCode ?? 0;
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.on('data', (chunk: Buffer) => {
            entry.bytesDown += chunk.length;
          });
          up.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => this.proxy!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.proxy.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.proxy ? this.proxy.close(() => resolve()) : resolve()));
    this.proxy?.closeAllConnections();
    await this.s3rver.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
