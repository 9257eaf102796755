import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { type ApiResponse, call } from './sandbox-client.js';

/**
 * One GET over a socket bound to `localAddress` (Linux routes all of 127/8 to
 * the loopback interface), so the sandbox sees another client IP.
 */
function getFrom(sb: RunningSandbox, localAddress: string, path: string, token: string | null): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
    const req = request(`${sb.baseUrl}${path}`, { method: 'GET', localAddress, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') out.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: out, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const SIZES = [1000, 300, 50];

describe('several organizations, each with its own tokens and data', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({ seed: 5, organizations: SIZES, now: () => new Date('2026-11-20T10:00:00Z') });
  });
  afterAll(() => sb.close());

  it('lists the organizations with their sizes and tokens', () => {
    expect(sb.organizations).toEqual([
      {
        slug: 'acme',
        company: 'Acme Support GmbH',
        conversations: 1000,
        tokens: { admin: 'acme-admin', agent: 'acme-agent' },
      },
      {
        slug: 'globex',
        company: 'Globex Corporation',
        conversations: 300,
        tokens: { admin: 'globex-admin', agent: 'globex-agent' },
      },
      {
        slug: 'initech',
        company: 'Initech LLC',
        conversations: 50,
        tokens: { admin: 'initech-admin', agent: 'initech-agent' },
      },
    ]);
  });

  it("each token's search counts exactly its organization's conversations, and GET /me names that organization", async () => {
    for (const org of sb.organizations) {
      for (const token of [org.tokens.admin, org.tokens.agent]) {
        // Seeded data holds no trashed conversations, so the total is the organization's size (spam included).
        const search = await call(sb, 'POST', '/search?per_page=100', { token, body: {} });
        expect(search.status, token).toBe(200);
        expect(search.body.data.conversations.meta.total, token).toBe(org.conversations);
        const me = await call(sb, 'GET', '/me', { token });
        expect(me.status, token).toBe(200);
        expect(me.body.data.organization, token).toMatchObject({ company: org.company, slug: org.slug });
        expect(me.body.data.role, token).toBe(token === org.tokens.admin ? 'Account Owner' : 'User');
      }
    }
    // The fixed tokens stay with organization 1.
    for (const token of ['sandbox-admin', 'sandbox-agent', 'sandbox-partner']) {
      const me = await call(sb, 'GET', '/me', { token });
      expect(me.body.data.organization.slug, token).toBe('acme');
      const search = await call(sb, 'POST', '/search', { token, body: {} });
      expect(search.body.data.conversations.meta.total, token).toBe(1000);
    }
    const acmeAdmin = await call(sb, 'GET', '/me', { token: 'acme-admin' });
    const sandboxAdmin = await call(sb, 'GET', '/me', { token: 'sandbox-admin' });
    expect(acmeAdmin.body.data.id).toBe(sandboxAdmin.body.data.id);
  });

  it('admin tokens carry users:read, agent tokens do not; tokens of organizations not served are unknown', async () => {
    for (const org of sb.organizations) {
      const users = await call(sb, 'GET', '/settings/users', { token: org.tokens.admin });
      expect(users.status, org.slug).toBe(200);
      expect(users.body.every((u: { email: string }) => u.email.endsWith(`@${org.slug}.example`))).toBe(true);
      expect((await call(sb, 'GET', '/settings/users', { token: org.tokens.agent })).status, org.slug).toBe(403);
    }
    expect((await call(sb, 'GET', '/me', { token: 'umbrella-admin' })).status).toBe(401);
    expect((await call(sb, 'GET', '/me', { token: 'initech-partner' })).status).toBe(401);
  });

  it("a token never sees another organization's conversations, inboxes or teammates: 404 as for absent ids", async () => {
    const { store } = sb;
    const orgs = store.world.organizations;
    const sample = orgs.map((o) => {
      for (let i = 0; i < store.table.count; i++) {
        const s = store.conversations.get(i);
        if (s.organizationId === o.id) return { conversation: s.id, inbox: s.inboxId, user: store.users(o.id)[0]!.id };
      }
      throw new Error(`no conversation in ${o.slug}`);
    });
    for (const [k, org] of sb.organizations.entries()) {
      const token = org.tokens.admin;
      for (const [j, ids] of sample.entries()) {
        const expected = j === k ? 200 : 404;
        const view = await call(sb, 'GET', `/conversation/${ids.conversation}`, { token });
        expect(view.status, `${org.slug} → conversation of ${orgs[j]!.slug}`).toBe(expected);
        if (expected === 404) expect(view.body).toEqual({ message: 'Not found.' });
        const tags = await call(sb, 'GET', `/inboxes/${ids.inbox}/tags`, { token });
        expect(tags.status, `${org.slug} → inbox of ${orgs[j]!.slug}`).toBe(expected);
        const user = await call(sb, 'GET', `/settings/users/${ids.user}`, { token });
        expect(user.status, `${org.slug} → teammate of ${orgs[j]!.slug}`).toBe(expected);
      }
      const inboxes = await call(sb, 'GET', '/inboxes', { token });
      const own = store.inboxes(orgs[k]!.id).map((b) => b.id);
      expect(inboxes.body.map((b: { id: string }) => b.id).sort()).toEqual([...own].sort());
    }
  });

  it('each organization has its own business hours and holidays', async () => {
    const ids = new Set<string>();
    for (const org of sb.organizations) {
      const hours = await call(sb, 'GET', '/business-hours', { token: org.tokens.agent });
      expect(hours.status, org.slug).toBe(200);
      expect(hours.body.length, org.slug).toBeGreaterThan(0);
      for (const p of hours.body) ids.add(p.id);
      const holidays = await call(sb, 'GET', '/holidays', { token: org.tokens.agent });
      expect(holidays.body.length, org.slug).toBeGreaterThan(0);
    }
    expect(ids.size).toBe(2 + 1 + 1);
  });
});

describe('the organizations option', () => {
  it('takes either conversations or organizations, and at most as many organizations as the sandbox has', async () => {
    await expect(startSandbox({ conversations: 100, organizations: [80, 20] })).rejects.toThrow(
      'Expected either `conversations` or `organizations`, got both',
    );
    await expect(startSandbox({ organizations: [1, 2, 3, 4, 5, 6, 7, 8, 9] })).rejects.toThrow(
      '`organizations`: at most 8 organizations (acme, globex, initech, umbrella, hooli, soylent, tyrell, massive), got 9',
    );
    await expect(startSandbox({ organizations: [10, -1] })).rejects.toThrow(
      '`organizations`: organization 2: expected a whole number from 0 up, got -1',
    );
  });
});

describe('one per-IP limiter for every organization', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({
      seed: 5,
      organizations: [40, 20, 10],
      rateLimit: 20,
      rateWindowSeconds: 60,
      // A clock that does not move: the window cannot end during the test.
      now: () => new Date('2026-11-20T10:00:00Z'),
    });
  });
  afterAll(() => sb.close());

  it("shares one budget across organizations' tokens from one IP; another client IP has its own", async () => {
    expect(new URL(sb.origin).hostname).toBe('127.0.0.1');
    const remaining: string[] = [];
    for (let i = 0; i < 20; i++) {
      const token = i % 2 === 0 ? 'acme-admin' : 'globex-agent';
      const res = await getFrom(sb, '127.0.0.1', '/me', token);
      expect(res.status, `request ${i + 1}`).toBe(200);
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => String(19 - i)));
    const refused = await getFrom(sb, '127.0.0.1', '/me', 'initech-admin');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers.get('retry-after'))).toBe(60);

    const other = await getFrom(sb, '127.0.0.2', '/me', 'acme-admin');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(other.body.data.organization.slug).toBe('acme');
    const third = await getFrom(sb, '127.0.0.3', '/me', 'globex-admin');
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('19');
    // Neither a missing nor an unknown token has an organization.
    expect((await getFrom(sb, '127.0.0.3', '/me', null)).status).toBe(401);
    expect((await getFrom(sb, '127.0.0.3', '/me', 'hooli-admin')).status).toBe(401);

    const stats = (await call(sb, 'GET', '/_sandbox/stats', { token: null })).body;
    expect(stats.by_ip).toEqual({
      '127.0.0.1': { total: 21, '200': 20, '429': 1 },
      '127.0.0.2': { total: 1, '200': 1, '429': 0 },
      '127.0.0.3': { total: 3, '200': 1, '401': 2, '429': 0 },
    });
    expect(stats.by_organization).toEqual({
      acme: { total: 11, '200': 11, '429': 0 },
      globex: { total: 11, '200': 11, '429': 0 },
      initech: { total: 1, '429': 1 },
    });
    expect(stats.total).toBe(25);
  });
});
