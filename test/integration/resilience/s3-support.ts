import { connect, createServer, type Server, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Row } from '../sync/support.js';

export const S3_ENV = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_EC2_METADATA_DISABLED: 'true',
};

/**
 * A TCP door in front of an S3 endpoint that can be shut: closed, nothing
 * listens on its port (connection refused, as when the server is down);
 * opened again, on the same port.
 */
export class TcpGate {
  port = 0;
  connections = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly upstreamPort: number) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async open(): Promise<void> {
    const server = createServer((socket) => {
      this.connections += 1;
      const upstream = connect(this.upstreamPort, '127.0.0.1');
      for (const s of [socket, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          socket.destroy();
          upstream.destroy();
        });
      }
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async shut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

export interface S3Output {
  tables: Record<string, Row[]>;
  manifests: Array<{ run_id: string; files: Array<{ key: string }> }>;
  dataKeys: string[];
}

/** Everything under `prefix/` in the bucket: data rows by table, and the manifests. */
export async function readS3Output(endpoint: string, bucket: string, prefix: string): Promise<S3Output> {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: S3_ENV.AWS_SECRET_ACCESS_KEY },
  });
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/`, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((o) => o.Key as string));
      token = page.NextContinuationToken;
    } while (token);
    const body = async (key: string) => {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
    };
    const out: S3Output = { tables: {}, manifests: [], dataKeys: [] };
    for (const key of keys) {
      const relative = key.slice(prefix.length + 1);
      if (relative.startsWith('_manifests/')) {
        out.manifests.push(JSON.parse((await body(key)).toString('utf8')));
      } else if (relative.endsWith('.jsonl.gz') && !relative.startsWith('_')) {
        out.dataKeys.push(relative);
        const table = relative.split('/')[0] as string;
        const rows = gunzipSync(await body(key))
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Row);
        out.tables[table] = (out.tables[table] ?? []).concat(rows);
      }
    }
    return out;
  } finally {
    client.destroy();
  }
}
