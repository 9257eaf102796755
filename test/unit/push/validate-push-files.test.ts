import { describe, expect, it } from 'vitest';
import { validatePushFiles } from '../../../src/push/files/validate-push-files.js';

const week = (start: string | null = '09:00', end: string | null = '17:00') => ({
  monday: start === null ? null : { start, end },
  tuesday: { start: '09:00', end: '17:00' },
  wednesday: { start: '09:00', end: '17:00' },
  thursday: { start: '09:00', end: '17:00' },
  friday: { start: '22:00', end: '06:00' },
  saturday: null,
  sunday: null,
});

const profiles = (...entries: unknown[]) => ({ businessHours: { file: 'bh.yaml', data: { business_hours: entries } } });
const holidays = (...entries: unknown[]) => ({ holidays: { file: 'h.yaml', data: { holidays: entries } } });
const profile = (extra: Record<string, unknown> = {}) => ({
  key: 'eu',
  type: 'business_hours',
  schedule: week(),
  channels: [{ inbox: 'Support', channel: 'email' }],
  ...extra,
});

describe('validatePushFiles', () => {
  it('accepts an overnight shift, a calendar_24_7 profile, one-day and year-spanning holidays', () => {
    const result = validatePushFiles({
      ...profiles(profile(), {
        key: 'always',
        type: 'calendar_24_7',
        channels: [{ inbox: 'Support', channel: 'livechat' }],
      }),
      ...holidays(
        { key: 'ny', name: 'New Year', start_date: '2027-01-01', end_date: '2027-01-01' },
        { key: 'winter', name: 'Winter', start_date: '2026-12-28', end_date: '2027-01-03' },
      ),
    });
    expect(result.issues).toEqual([]);
    expect(result.files.businessHours?.entries.map((e) => e.entry.key)).toEqual(['eu', 'always']);
    expect(result.files.holidays?.entries).toHaveLength(2);
  });

  it.each([
    [
      'end before start',
      holidays({ key: 'x', name: 'X', start_date: '2027-01-05', end_date: '2027-01-04' }),
      'h.yaml, holidays[0] (key "x"), end_date',
      'must be on or after start_date (2027-01-05)',
    ],
    [
      'an impossible date',
      holidays({ key: 'x', name: 'X', start_date: '2027-02-29', end_date: '2027-03-01' }),
      'h.yaml, holidays[0] (key "x"), start_date',
      'not a real calendar date',
    ],
    [
      'an unquoted-looking date',
      holidays({ key: 'x', name: 'X', start_date: 20270101, end_date: '2027-03-01' }),
      'h.yaml, holidays[0] (key "x"), start_date',
      'expected a date "YYYY-MM-DD" (quote it)',
    ],
    [
      'a missing name',
      holidays({ key: 'x', start_date: '2027-01-01', end_date: '2027-01-01' }),
      'h.yaml, holidays[0] (key "x"), name',
      'required',
    ],
    [
      'an unknown holiday field',
      holidays({ key: 'x', name: 'X', start_date: '2027-01-01', end_date: '2027-01-01', status: 'past' }),
      'h.yaml, holidays[0] (key "x")',
      'unknown key(s): status',
    ],
    [
      'a bad key',
      holidays({ key: 'new year', name: 'X', start_date: '2027-01-01', end_date: '2027-01-01' }),
      'h.yaml, holidays[0] (key "new year"), key',
      'expected letters, digits, ".", "_" or "-", starting with a letter or digit (at most 100)',
    ],
    [
      'an unknown type',
      profiles(profile({ type: 'weekdays' })),
      'bh.yaml, business_hours[0] (key "eu"), type',
      'expected business_hours or calendar_24_7',
    ],
    [
      'a missing weekday',
      profiles(profile({ schedule: { ...week(), sunday: undefined } })),
      'bh.yaml, business_hours[0] (key "eu"), schedule.sunday',
      'missing: give {start, end}, or null for a closed day',
    ],
    [
      'an eighth day',
      profiles(profile({ schedule: { ...week(), holiday: null } })),
      'bh.yaml, business_hours[0] (key "eu"), schedule',
      'unknown key(s): holiday',
    ],
    [
      '24:00',
      profiles(profile({ schedule: week('09:00', '24:00') })),
      'bh.yaml, business_hours[0] (key "eu"), schedule.monday.end',
      'expected a 24-hour time HH:MM (00:00 to 23:59)',
    ],
    [
      '12:60',
      profiles(profile({ schedule: week('12:60', '17:00') })),
      'bh.yaml, business_hours[0] (key "eu"), schedule.monday.start',
      'expected a 24-hour time HH:MM (00:00 to 23:59)',
    ],
    [
      'start equal to end',
      profiles(profile({ schedule: week('9:00', '09:00') })),
      'bh.yaml, business_hours[0] (key "eu"), schedule.monday.end',
      'equals start; an end earlier than the start is an overnight shift, a closed day is null',
    ],
    [
      'no schedule for business_hours',
      profiles(profile({ schedule: undefined })),
      'bh.yaml, business_hours[0] (key "eu"), schedule',
      'required for type business_hours: all seven weekdays, null = closed',
    ],
    [
      'a schedule for calendar_24_7',
      profiles(profile({ type: 'calendar_24_7' })),
      'bh.yaml, business_hours[0] (key "eu"), schedule',
      'must be omitted for type calendar_24_7 (open around the clock)',
    ],
    [
      'an sms channel',
      profiles(profile({ channels: [{ inbox: 'Support', channel: 'sms' }] })),
      'bh.yaml, business_hours[0] (key "eu"), channels[0].channel',
      'only email and livechat channels can be covered',
    ],
    [
      'a channel in two profiles',
      profiles(profile(), profile({ key: 'us' })),
      'bh.yaml, business_hours[1] (key "us"), channels[0]',
      'Support email is already covered by business_hours[0] (key "eu"); a channel belongs to at most one profile',
    ],
    [
      'a duplicate key',
      profiles(profile(), profile({ channels: [] })),
      'bh.yaml, business_hours[1] (key "eu"), key',
      'duplicate key, already used by business_hours[0] (key "eu")',
    ],
  ])('reports %s with file, entry and field', (_label, input, path, message) => {
    const { issues } = validatePushFiles(input);
    expect(issues).toEqual([{ path, message }]);
  });

  it('lists every problem at once, across both files', () => {
    const { issues } = validatePushFiles({
      ...profiles(profile({ type: 'nope', schedule: week('25:00') }), { key: 'b' }),
      ...holidays({ key: 'h', name: '', start_date: '2027-13-01', end_date: '2027-01-01' }),
    });
    expect(issues.map((i) => i.path)).toEqual([
      'h.yaml, holidays[0] (key "h"), name',
      'h.yaml, holidays[0] (key "h"), start_date',
      'bh.yaml, business_hours[0] (key "eu"), type',
      'bh.yaml, business_hours[0] (key "eu"), schedule.monday.start',
      'bh.yaml, business_hours[1] (key "b"), type',
    ]);
  });

  it('moved: an old key becomes an alias of the entry it now names; every wrong line is reported', () => {
    const ok = validatePushFiles({
      businessHours: { file: 'bh.yaml', data: { business_hours: [profile()], moved: { 'eu-old': 'eu' } } },
      holidays: {
        file: 'h.yaml',
        data: {
          holidays: [{ key: 'ny', name: 'NY', start_date: '2027-01-01', end_date: '2027-01-01' }],
          moved: { nye: 'ny' },
        },
      },
    });
    expect(ok.issues).toEqual([]);
    expect(ok.files.businessHours?.entries[0]?.aliases).toEqual(['eu-old']);
    expect(ok.files.holidays?.entries[0]?.aliases).toEqual(['nye']);
    const bad = validatePushFiles({
      businessHours: {
        file: 'bh.yaml',
        data: { business_hours: [profile()], moved: { eu: 'eu', gone: 'nowhere', 'x y': 'eu', old: 7 } },
      },
      holidays: { file: 'h.yaml', data: { holidays: [], moved: ['a', 'b'] } },
    });
    expect(bad.issues).toEqual([
      { path: 'h.yaml, moved', message: 'expected a mapping of old key to new key' },
      { path: 'bh.yaml, moved.eu', message: '"eu" is still an entry\'s key; a moved key must be gone from the file' },
      { path: 'bh.yaml, moved.gone', message: 'no entry has the key "nowhere"' },
      { path: 'bh.yaml, moved.x y', message: '"x y" is not a key' },
      { path: 'bh.yaml, moved.old', message: 'expected a key (letters, digits, ".", "_", "-")' },
    ]);
  });

  it('names the file when the top level is wrong', () => {
    expect(validatePushFiles({ holidays: { file: 'h.yaml', data: [{ key: 'x' }] } }).issues).toEqual([
      { path: 'h.yaml', message: 'expected a mapping with a `holidays:` list (and/or `calendar:`, `ics:`)' },
    ]);
    expect(validatePushFiles({ holidays: { file: 'h.yaml', data: { holidays: [], extra: 1 } } }).issues).toEqual([
      { path: 'h.yaml', message: 'unknown key(s): extra' },
    ]);
  });
});
