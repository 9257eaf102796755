import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PushHarness, startPushHarness } from './push-harness.js';

let h: PushHarness;
let file: string;
beforeAll(async () => {
  h = await startPushHarness();
  file = h.config().push.holidays!;
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.resetStats();
});

const ics = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//t//EN', ...lines, 'END:VCALENDAR'].join('\r\n');
const event = (uid: string | undefined, ...lines: string[]) => [
  'BEGIN:VEVENT',
  ...(uid ? [`UID:${uid}`] : []),
  'DTSTAMP:20260101T000000Z',
  ...lines,
  'END:VEVENT',
];

describe('invalid calendar and ics sources: every problem named, exit 64, no request made', () => {
  it.each<[string, string, Record<string, string>, string[]]>([
    [
      'an unknown country, a bad year and an unknown type at once',
      'calendar: { country: XX, years: [26], types: [holy] }\n',
      {},
      [
        'HOL, calendar, years[0]: expected a year from 1970 to 2199',
        'HOL, calendar, types[0]: expected one of public, bank, school, optional, observance',
        'HOL, calendar, country: unknown country "XX" (ISO 3166-1 alpha-2 code, e.g. DE, FR, US)',
      ],
    ],
    [
      'an unknown region, in the second calendar of a list',
      'calendar:\n  - { country: DE, years: [2026] }\n  - { country: DE, region: XY, years: [2026] }\n',
      {},
      [
        'HOL, calendar[1], region: unknown region "XY" of DE (regions: BB, BE, BW, BY, HB, HE, HH, MV, NI, NW, RP, SH, SL, SN, ST, TH)',
      ],
    ],
    [
      'no years, a language without names, an unknown key',
      'calendar: { country: DE, region: BY, language: fr, year: 2026 }\n',
      {},
      [
        'HOL, calendar, years: required',
        'HOL, calendar: unknown key(s): year',
        'HOL, calendar, language: no holiday names in "fr" for DE (languages: de, en)',
      ],
    ],
    [
      'an exclusion and a rename that match nothing',
      'calendar: { country: DE, region: BY, years: [2026], exclude: [halloween], rename: { xmas: X } }\n',
      {},
      [
        'HOL, calendar, exclude[0]: "halloween" matches no holiday of DE-BY in 2026',
        'HOL, calendar, rename.xmas: "xmas" matches no holiday of DE-BY in 2026',
      ],
    ],
    [
      'a calendar key that a plain entry already uses',
      'holidays:\n  - { key: de-by-2026-neujahr, name: NY, start_date: "2026-01-01", end_date: "2026-01-01" }\ncalendar: { country: DE, region: BY, years: [2026] }\n',
      {},
      [
        'HOL, calendar (key "de-by-2026-neujahr"): duplicate key, already used by holidays[0] (key "de-by-2026-neujahr"); exclude it from this source or rename the other entry',
      ],
    ],
    [
      'an ics key that a plain entry already uses: the advice fits an ics source',
      'holidays:\n  - { key: off-x, name: Off, start_date: "2026-01-01", end_date: "2026-01-01" }\nics: ./d.ics\n',
      { 'd.ics': ics(...event('off@x', 'DTSTART;VALUE=DATE:20261005', 'SUMMARY:Offsite')) },
      [
        'HOL, ics (key "off-x"): duplicate key, already used by holidays[0] (key "off-x"); change the event\'s UID in the calendar file or rename the other entry',
      ],
    ],
    [
      'an .ics file that is missing',
      'ics: ./missing.ics\n',
      {},
      ['HOL, ics (./missing.ics): file not found (DIR/missing.ics)'],
    ],
    [
      'an .ics file that is not iCalendar',
      'ics: [./a.ics, ./b.ics]\n',
      { 'a.ics': 'hello\n', 'b.ics': 'BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n' },
      [
        'HOL, ics[0] (./a.ics): not a valid iCalendar file: invalid line (no token ";" or ":") "hello"',
        'HOL, ics[1] (./b.ics): not a valid iCalendar file: expected BEGIN:VCALENDAR, found VCARD',
      ],
    ],
    [
      'events without UID, without SUMMARY, and a recurring event without years',
      'ics: { file: ./c.ics }\n',
      {
        'c.ics': ics(
          ...event(undefined, 'DTSTART;VALUE=DATE:20260101', 'SUMMARY:No uid'),
          ...event('nameless@x', 'DTSTART;VALUE=DATE:20260102'),
          ...event('yearly@x', 'DTSTART;VALUE=DATE:20200101', 'RRULE:FREQ=YEARLY', 'SUMMARY:Yearly'),
        ),
      },
      [
        'HOL, ics (./c.ics), VEVENT 1 at line 4: UID: required',
        'HOL, ics (./c.ics), event UID "nameless@x", SUMMARY: required: it becomes the holiday name',
        'HOL, ics (./c.ics), event UID "yearly@x": recurring event: set years on this ics source to expand it',
      ],
    ],
    [
      'an ics source with a bad shape',
      'ics: { path: ./x.ics, years: [2026] }\n',
      {},
      ['HOL, ics: expected a path to an .ics file, or {file, years}'],
    ],
  ])('%s', async (_label, holidays, extra, lines) => {
    for (const [name, text] of Object.entries(extra)) writeFileSync(join(h.dir, name), text);
    h.writeFiles({ holidays, businessHours: 'business_hours: []\n' });
    const expected = [
      `error [CONFIG_INVALID]: invalid configuration in ${file} and ${h.config().push.business_hours}:`,
      ...lines.map((l) => `  - ${l.replace(/^HOL/, file).replace('DIR', h.dir)}`),
    ].join('\n');
    for (const run of [() => h.plan({ detailedExitcode: true }), () => h.apply({ autoApprove: true })]) {
      const result = await run();
      expect([result.code, result.error, result.output]).toEqual([64, expected, '']);
    }
    expect(h.sandbox.stats().total).toBe(0);
  });
});
