import { describe, expect, it } from 'vitest';
import { addDays, reportDays, utcDay } from '../../../../src/streams/reports/report-days.js';

describe('reportDays', () => {
  const base = { today: '2026-03-10', lookbackDays: 2, fullRefresh: false };

  it('on empty state: every day from the start date through today', () => {
    expect(reportDays({ ...base, startDate: '2026-03-07', pulled: () => false })).toEqual([
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
  });

  it('later: only today, the lookback days before it, and days never pulled', () => {
    const pulled = new Set([
      '2026-03-01',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(reportDays({ ...base, startDate: '2026-03-01', pulled: (d) => pulled.has(d) })).toEqual([
      '2026-03-02',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(reportDays({ ...base, lookbackDays: 0, startDate: '2026-03-01', pulled: (d) => pulled.has(d) })).toEqual([
      '2026-03-02',
      '2026-03-10',
    ]);
  });

  it('full refresh pulls every day; the default start is 30 days back; a future start pulls nothing', () => {
    expect(reportDays({ ...base, fullRefresh: true, startDate: '2026-03-05', pulled: () => true })).toHaveLength(6);
    const all = reportDays({ ...base, pulled: () => false });
    expect(all[0]).toBe('2026-02-08');
    expect(all).toHaveLength(31);
    expect(reportDays({ ...base, startDate: '2026-04-01', pulled: () => false })).toEqual([]);
  });

  it('crosses months and leap days in UTC', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(utcDay(new Date('2026-03-10T23:59:59-05:00'))).toBe('2026-03-11');
  });
});
