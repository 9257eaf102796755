import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../api/fake-clock.js';
import { FakeApiError, FakeHelpdesk } from './fake-helpdesk.js';
import { FakeStore } from './fake-output.js';
import { HelpdeskWorld } from './helpdesk-world.js';
import { syncOnce, testConfig } from './sync-harness.js';

const clock = () => new FakeClock(Date.parse('2026-03-10T08:00:00Z'));
const forbidden = () => {
  throw new FakeApiError(403, 'API_FORBIDDEN');
};

describe('reports a token may not read', () => {
  let api: FakeHelpdesk;
  let store: FakeStore;

  beforeEach(() => {
    api = new FakeHelpdesk();
    new HelpdeskWorld(api).seed({ conversations: 5 });
    store = new FakeStore();
  });

  const reportRequests = (from: number, inbox: string) =>
    api.requests.slice(from).filter((r) => r.startsWith(`GET /reports/${inbox}/`)).length;

  it('one inbox answering 403: its days are skipped with a warning naming it, the others are written', async () => {
    api.report = (inbox) => (inbox === 'inbox-2' ? forbidden() : { created_conversations: 1 });
    const { summary, output, requestsBefore } = await syncOnce(api, store, { streams: ['reports'], clock: clock() });
    expect(summary.status).toBe('succeeded');
    expect(summary.skipped_streams).toEqual([]);
    expect(summary.warnings).toEqual([
      {
        code: 'REPORTS_INBOX_FORBIDDEN',
        message:
          'reports of inbox inbox-2 skipped: GET /reports/inbox-2/productivity answered 403 (the token lacks the ' +
          'scope, or its user lacks access to this resource); its days are pulled on a later run once the token may read them',
      },
    ]);
    const rows = store.rowsOf(output.runId, 'report_productivity_daily').map((r) => r.record.inbox_id);
    expect(new Set(rows)).toEqual(new Set(['inbox-1']));
    expect(rows).toHaveLength(10);
    // After its first 403 the inbox is not asked again (a few requests were already in flight).
    expect(reportRequests(requestsBefore, 'inbox-2')).toBeLessThanOrEqual(4);

    // Once readable, the skipped days are pulled: none of them was remembered.
    api.report = () => ({ created_conversations: 1 });
    const next = await syncOnce(api, store, { streams: ['reports'], clock: clock() });
    expect(reportRequests(next.requestsBefore, 'inbox-2')).toBe(10);
  });

  it('every inbox answering 403: the stream is skipped, naming the setting, and the run succeeds', async () => {
    api.report = forbidden;
    const { summary } = await syncOnce(api, store, { streams: ['reports', 'inboxes'], clock: clock() });
    expect(summary.status).toBe('succeeded');
    expect(summary.skipped_streams).toEqual([
      {
        stream: 'reports',
        reason:
          'reports skipped: GET /reports/{inbox_id}/productivity answered 403 (the token lacks the scope, or its user ' +
          'lacks access to this resource); the run goes on without it. If this token is not meant to read it, leave ' +
          'reports out of `streams:` in the config.',
      },
    ]);
  });

  it('a start date that plans more than 10 000 requests warns with how many and how long', async () => {
    const config = testConfig({ reports: { start_date: '2000-01-01', lookback_days: 2 } });
    const { summary } = await syncOnce(api, store, { streams: ['reports'], clock: clock(), config });
    // 2000-01-01 to 2026-03-10: 9 566 days, two inboxes.
    expect(summary.warnings).toEqual([
      {
        code: 'REPORTS_BACKFILL_LARGE',
        message:
          'reports: 19132 requests to make (9566 days from reports.start_date 2000-01-01 × 2 inboxes, one request ' +
          'per inbox and day), about 64 minutes at 300 requests a minute; set reports.start_date later to pull less history',
      },
    ]);
  });
});
