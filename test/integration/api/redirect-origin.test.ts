import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/create-api-client.js';
import { collect } from '../../../src/api/endpoints/paginate.js';

/**
 * Redirects over real sockets: the API (server A) redirects to a second server
 * (B) that records the headers of every request it receives. A redirect on the
 * same origin is followed; one to B is refused, and B never sees the token (nor
 * any request at all).
 */

const TOKEN = 'hs_pat_redirectSECRET0123456789';
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Server B: answers like the API would, and records what reached it. */
async function recorder(): Promise<{ origin: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const origin = await listen((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: 'stolen' } }));
  });
  return { origin, seen };
}

describe('redirects against real servers', () => {
  it('refuses a redirect to another origin: the second server receives nothing, the error carries no token', async () => {
    const b = await recorder();
    const a = await listen((req, res) => {
      if (req.url === '/v1/me') res.writeHead(302, { location: `${b.origin}/v1/me` }).end();
      else if (req.url?.startsWith('/v1/inboxes')) res.writeHead(301, { location: `${b.origin}${req.url}` }).end();
      else res.writeHead(404).end();
    });
    const client = createApiClient({ baseUrl: `${a}/v1`, token: TOKEN });
    try {
      const me = await client.api.me().catch((e: unknown) => e as Error);
      expect(me).toMatchObject({ code: 'API_REDIRECT', status: 302 });
      expect((me as Error).message).toContain(`to another origin (${b.origin}): refused`);
      const list = await collect(client.api.listInboxes()).catch((e: unknown) => e as Error);
      expect(list).toMatchObject({ code: 'API_REDIRECT', status: 301 });
      for (const error of [me, list]) expect(JSON.stringify(error) + String(error)).not.toContain(TOKEN);
    } finally {
      client.close();
    }
    expect(b.seen).toEqual([]);
  });

  it('follows a same-origin redirect, sending the token only to the configured origin', async () => {
    const b = await recorder();
    const seenByA: IncomingHttpHeaders[] = [];
    const a = await listen((req, res) => {
      seenByA.push(req.headers);
      if (req.url === '/v1/me') res.writeHead(301, { location: '/v1/me/' }).end();
      else if (req.url === '/v1/me/') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: 'u1' } }));
      } else res.writeHead(404).end();
    });
    const client = createApiClient({ baseUrl: `${a}/v1`, token: TOKEN });
    try {
      expect(await client.api.me()).toEqual({ id: 'u1' });
    } finally {
      client.close();
    }
    expect(seenByA.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(b.seen).toEqual([]);
  });

  it('refuses the same host on another port, and another name for the same host', async () => {
    const b = await recorder();
    let aPort = '';
    const a = await listen((req, res) => {
      // /v1/me: the recorder's port; anything else: this very server, under the name localhost.
      const port = req.url === '/v1/me' ? new URL(b.origin).port : aPort;
      res.writeHead(307, { location: `http://localhost:${port}${req.url}` }).end();
    });
    aPort = new URL(a).port;
    const client = createApiClient({ baseUrl: `${a}/v1`, token: TOKEN });
    try {
      await expect(client.api.me()).rejects.toMatchObject({ code: 'API_REDIRECT' });
      await expect(client.api.getConversation('c1')).rejects.toMatchObject({ code: 'API_REDIRECT' });
    } finally {
      client.close();
    }
    expect(b.seen).toEqual([]);
  });
});
