import { beforeEach, describe, expect, it } from 'vitest';
import { FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import { SCOPES } from '../../../src/streams/scopes.js';
import type { SyncProgress } from '../../../src/sync/sync-types.js';
import { FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce } from './sync-harness.js';

/**
 * A failure confined to one stream (one endpoint's answer) fails that stream: what
 * it committed stays, the other streams run and commit, the run ends `partial`. A
 * 401, an unreachable host and any error that is not the API's end the run at once.
 */

const TOKEN = 'test-token-123';
const BASE = 'http://127.0.0.1:1/v1';

/** GET /holidays answered by a redirect to another origin, refused as the transport refuses it. */
function refusedRedirect(): FatalApiError {
  return new FatalApiError({
    code: 'API_REDIRECT',
    status: 302,
    method: 'GET',
    url: `${BASE}/holidays?token=${TOKEN}`,
    message: `GET ${BASE}/holidays?token=${TOKEN} answered 302 to another origin (http://127.0.0.1:2): refused (API_REDIRECT)`,
    secrets: [TOKEN],
  });
}

const serverError = (path: string) =>
  new RetriableApiError({ code: 'API_SERVER', status: 500, method: 'GET', url: `${BASE}${path}` });

describe('a stream that fails', () => {
  let api: FakeHelpdesk;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    new HelpdeskWorld(api).seed({ conversations: 150 });
    store = new FakeStore();
  });

  const requestsSince = (from: number, prefix: string) =>
    api.requests.slice(from).filter((r) => r.startsWith(prefix)).length;

  it('an off-site redirect on holidays fails holidays alone: the other streams commit, the run ends partial', async () => {
    api.failing.set('/holidays', refusedRedirect());
    const progress: SyncProgress[] = [];
    const { summary, output } = await syncOnce(api, store, { onProgress: (p) => progress.push(p) });
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams).toEqual([
      {
        stream: 'holidays',
        code: 'API_REDIRECT',
        message: `GET ${BASE}/holidays?token=[REDACTED] answered 302 to another origin (http://127.0.0.1:2): refused (API_REDIRECT)`,
      },
    ]);
    expect(summary.warnings.filter((w) => w.code === 'STREAM_FAILED')).toEqual([
      {
        code: 'STREAM_FAILED',
        message: expect.stringMatching(
          /^holidays failed \(API_REDIRECT\): GET .* refused \(API_REDIRECT\); what it committed before the failure is kept, the other streams ran, the next run retries it$/,
        ),
      },
    ]);
    expect(JSON.stringify(summary)).not.toContain(TOKEN);
    // Every stream after holidays ran and committed: the account, tags, the scan, reports.
    expect(store.rowsOf(output.runId, 'conversations')).toHaveLength(150);
    expect(store.rowsOf(output.runId, 'tags')).toHaveLength(2);
    expect(store.rowsOf(output.runId, 'account')).toHaveLength(1);
    expect(store.rowsOf(output.runId, 'report_productivity_daily').length).toBeGreaterThan(0);
    expect(store.rowsOf(output.runId, 'holidays')).toEqual([]);
    // A failed stream has no completeness figure; the others have theirs.
    const measured = summary.completeness.map((f) => f.stream);
    expect(measured).not.toContain('holidays');
    expect(measured).toEqual(expect.arrayContaining(['conversations', 'tags', 'inboxes', 'reports']));
    // The live progress shows it failed, and the others done.
    const last = progress.at(-1) as SyncProgress;
    expect(last.streams.find((s) => s.stream === 'holidays')?.status).toBe('failed');
    expect(last.streams.filter((s) => s.status !== 'failed').map((s) => s.status)).toEqual(
      last.streams.filter((s) => s.status !== 'failed').map(() => 'done'),
    );

    // Healed: the next run reads holidays and succeeds.
    api.failing.clear();
    const next = await syncOnce(api, store);
    expect(next.summary.status).toBe('succeeded');
    expect(next.summary.failed_streams).toEqual([]);
    expect(store.rowsOf(next.output.runId, 'holidays')).toHaveLength(1);
    expect(next.summary.completeness.map((f) => f.stream)).toContain('holidays');
  });

  it('the scan failing mid-listing fails its three streams, keeps what it committed, and the run goes on', async () => {
    api.beforePage = (page) => {
      if (page === 2) throw serverError('/search');
    };
    const before = api.requests.length;
    const { summary, output } = await syncOnce(api, store, { checkpointEvery: { rows: 10, ms: 60_000 } });
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams.map((f) => [f.stream, f.code])).toEqual([
      ['conversations', 'API_SERVER'],
      ['contacts', 'API_SERVER'],
      ['messages', 'API_SERVER'],
    ]);
    expect(summary.warnings.filter((w) => w.code === 'STREAM_FAILED')).toHaveLength(3);
    // Page 1's conversations were committed with their threads; reports ran after the scan.
    expect(store.rowsOf(output.runId, 'conversations')).toHaveLength(100);
    expect(store.state.get(SCOPES.conversations)?.size).toBe(100);
    expect(requestsSince(before, 'GET /reports/')).toBeGreaterThan(0);
    expect(summary.completeness.map((f) => f.stream)).not.toEqual(
      expect.arrayContaining(['conversations', 'contacts', 'messages']),
    );
    expect(summary.completeness.map((f) => f.stream)).toContain('reports');
  });

  it('a persistent 5xx on every inbox’s tags fails tags alone', async () => {
    api.failing.set('/inboxes/{inbox_id}/tags', serverError('/inboxes/inbox-1/tags'));
    const { summary, output } = await syncOnce(api, store);
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams.map((f) => `${f.stream} ${f.code}`)).toEqual(['tags API_SERVER']);
    expect(store.rowsOf(output.runId, 'conversations')).toHaveLength(150);
  });

  it('a 401 ends the run at once: no stream after it runs, what completed before it is committed', async () => {
    api.failing.set(
      '/holidays',
      new FatalApiError({ code: 'API_UNAUTHORIZED', status: 401, method: 'GET', url: `${BASE}/holidays` }),
    );
    const before = api.requests.length;
    await expect(syncOnce(api, store)).rejects.toMatchObject({ code: 'API_UNAUTHORIZED' });
    expect(requestsSince(before, 'POST /search')).toBe(0);
    expect(requestsSince(before, 'GET /inboxes/')).toBe(0);
    // inboxes ran before holidays: committed.
    expect(store.committed.filter((r) => r.table === 'inboxes')).toHaveLength(2);
  });

  it('an unreachable host (connection refused, DNS, connect timeout) ends the run; a reset mid-answer fails the stream', async () => {
    const network = (code: 'API_NETWORK' | 'API_TIMEOUT', notSent: boolean) =>
      new RetriableApiError({ code, method: 'GET', url: `${BASE}/holidays`, notSent });
    api.failing.set('/holidays', network('API_NETWORK', true));
    await expect(syncOnce(api, store)).rejects.toMatchObject({ code: 'API_NETWORK', notSent: true });
    api.failing.set('/holidays', network('API_TIMEOUT', true));
    await expect(syncOnce(api, store)).rejects.toMatchObject({ code: 'API_TIMEOUT', notSent: true });
    api.failing.set('/holidays', network('API_NETWORK', false));
    const reset = await syncOnce(api, store);
    expect(reset.summary.status).toBe('partial');
    expect(reset.summary.failed_streams.map((f) => f.code)).toEqual(['API_NETWORK']);
  });

  it('an error that is not the API’s (a bug, the state) ends the run as before', async () => {
    api.failing.set('/holidays', new TypeError('cannot read properties of undefined'));
    const before = api.requests.length;
    await expect(syncOnce(api, store)).rejects.toThrow('cannot read properties of undefined');
    expect(requestsSince(before, 'POST /search')).toBe(0);
  });

  it('a run interrupted after a stream failed is partial, and still lists the failure', async () => {
    const controller = new AbortController();
    api.failing.set('/holidays', refusedRedirect());
    api.beforePage = (page) => {
      if (page === 2) controller.abort(new Error('SIGTERM'));
    };
    const { summary } = await syncOnce(api, store, { signal: controller.signal });
    expect(summary.status).toBe('partial');
    expect(summary.failed_streams.map((f) => f.stream)).toEqual(['holidays']);
  });
});
