import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../../src/config/cron-problem.js';
import { parseConfig } from '../../../src/config/load.js';
import type { ConfigError } from '../../../src/errors.js';

describe('cronProblem: which field of a refused schedule is wrong', () => {
  it.each([
    ['0 25 * * *', 'field 2 (hour) "25" is out of range 0-23'],
    ['60 * * * *', 'field 1 (minute) "60" is out of range 0-59'],
    ['* * 0 * *', 'field 3 (day of month) "0" is out of range 1-31'],
    ['* * * 13 *', 'field 4 (month) "13" is out of range 1-12'],
    ['* * * * 8', 'field 5 (day of week) "8" is out of range 0-7'],
    ['1,2,99 * * * *', 'field 1 (minute) "99" is out of range 0-59'],
    ['0-60 * * * *', 'field 1 (minute) "60" is out of range 0-59'],
    ['*/0 * * * *', 'field 1 (minute) step "0" in "*/0" must be 1 or more'],
    ['0 61 * * * *', 'field 2 (minute) "61" is out of range 0-59'],
    [
      '* * * foo *',
      'field 4 (month) "foo" is not valid here (expected 1-12 or jan-dec, a range a-b, a step */n or a list a,b)',
    ],
    ['every minute', 'expected 5 fields (minute hour day-of-month month day-of-week) or 6 (a second first), got 2'],
    [
      '@sometimes',
      'unknown shorthand "@sometimes" (known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)',
    ],
  ])('%s: %s', (expression, problem) => {
    expect(cronProblem(expression)).toBe(problem);
  });

  it.each(['*/15 * * * *', '0 0 * * MON-FRI', '30 8 1 jan *', '* * * * * *', '@daily', '0 0 L * *', '0 0 * * 7'])(
    'accepts what node-cron accepts: %s',
    (expression) => {
      expect(cronProblem(expression)).toBeUndefined();
    },
  );

  it('is what the config says of schedule.sync and schedule.push', () => {
    try {
      parseConfig(
        {
          source: { base_url: 'https://api.example.com/v1', token: 't0ken' },
          schedule: { sync: '0 25 * * *', push: '*/15 * * * *' },
          push: { holidays: 'h.yaml' },
        },
        'c.yaml',
        {},
      );
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([
        { path: 'schedule.sync', message: 'field 2 (hour) "25" is out of range 0-23' },
      ]);
    }
  });
});
