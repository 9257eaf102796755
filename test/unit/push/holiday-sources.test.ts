import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validatePushFiles } from '../../../src/push/files/validate-push-files.js';

// Expectations follow date-holidays 3's data, pinned to well-known holidays.
const dir = mkdtempSync(join(tmpdir(), 'holiday-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const expand = (data: Record<string, unknown>) => {
  const result = validatePushFiles({ holidays: { file: join(dir, 'h.yaml'), data } });
  return {
    issues: result.issues,
    entries: result.files.holidays?.entries.map((e) => ({ ...e.entry, origin: e.ref.origin })) ?? [],
    warnings: result.files.holidays?.warnings ?? [],
  };
};

describe('calendar sources', () => {
  it('DE-BY 2026: twelve public holidays, keys from the German names whatever the language', () => {
    const de = expand({ calendar: { country: 'DE', region: 'BY', years: [2026] } });
    expect(de.issues).toEqual([]);
    expect(de.entries).toHaveLength(12);
    expect(de.entries.slice(0, 2)).toEqual([
      {
        key: 'de-by-2026-neujahr',
        name: 'Neujahr',
        start_date: '2026-01-01',
        end_date: '2026-01-01',
        origin: 'calendar DE-BY 2026',
      },
      {
        key: 'de-by-2026-heilige-drei-konige',
        name: 'Heilige Drei Könige',
        start_date: '2026-01-06',
        end_date: '2026-01-06',
        origin: 'calendar DE-BY 2026',
      },
    ]);
    const en = expand({ calendar: { country: 'de', region: 'by', years: [2026], language: 'en' } });
    expect(en.entries.map((e) => e.key)).toEqual(de.entries.map((e) => e.key));
    expect(en.entries[0]!.name).toBe("New Year's Day");
  });

  it('keys do not depend on language or on the year list; older keys of the same holiday are kept as aliases', () => {
    const one = expand({ calendar: { country: 'DE', region: 'BY', years: [2027], language: 'en' } });
    const two = expand({ calendar: { country: 'DE', region: 'BY', years: [2026, 2027], language: 'en' } });
    const keys2027 = (r: typeof one) => r.entries.filter((e) => e.key.startsWith('de-by-2027-')).map((e) => e.key);
    expect(keys2027(two)).toEqual(keys2027(one));
    expect(keys2027(two)[0]).toBe('de-by-2027-neujahr');
    expect(two.entries.find((e) => e.key === 'de-by-2027-neujahr')?.name).toBe("New Year's Day");
    const fr = expand({ calendar: { country: 'FR', years: [2026, 2027] } });
    const frEn = expand({ calendar: { country: 'FR', years: [2026, 2027], language: 'en' } });
    expect(frEn.entries.map((e) => e.key)).toEqual(fr.entries.map((e) => e.key));
    expect(frEn.entries.map((e) => e.name)).not.toEqual(fr.entries.map((e) => e.name));
    // The key an earlier release gave 2027's New Year once English leaked into the second year.
    const aliases = validatePushFiles({
      holidays: { file: join(dir, 'h.yaml'), data: { calendar: { country: 'DE', region: 'BY', years: [2027] } } },
    }).files.holidays?.entries[0]?.aliases;
    expect(aliases).toEqual(['de-by-2027-new-year-s-day']);
  });

  it('warns when the library knows few public holidays for the place, with advice that fits it', () => {
    const india = expand({ calendar: { country: 'IN', years: [2026] } });
    expect(india.issues).toEqual([]);
    expect(india.warnings).toEqual([
      `${join(dir, 'h.yaml')}, calendar: date-holidays lists only 6 public holidays for IN in 2026; regional and religious holidays may be missing: choose a region (AN, AP, AR, AS, BR, CH, CT, DD, …) or add the others as holidays entries or an ics source`,
    ]);
    expect(expand({ calendar: { country: 'DE', region: 'BY', years: [2026] } }).warnings).toEqual([]);
  });

  it('a subregion the library offers (Catholic municipalities of Bavaria: 15 August), checked against its list', () => {
    const keys = (subregion?: string) =>
      expand({
        calendar: { country: 'DE', region: 'BY', years: [2026], ...(subregion ? { subregion } : {}) },
      }).entries.map((e) => e.key);
    expect(keys('kath')).toContain('de-by-kath-2026-maria-himmelfahrt');
    expect(keys().some((k) => k.includes('himmelfahrt') && k.startsWith('de-by-2026-maria'))).toBe(false);
    const bad = expand({ calendar: { country: 'DE', region: 'BY', years: [2026], subregion: 'XX' } });
    expect(bad.issues).toEqual([
      {
        path: `${join(dir, 'h.yaml')}, calendar, subregion`,
        message: 'unknown subregion "XX" of DE-BY (subregions: A, KATH, EVANG)',
      },
    ]);
    expect(expand({ calendar: { country: 'DE', years: [2026], subregion: 'KATH' } }).issues).toEqual([
      { path: `${join(dir, 'h.yaml')}, calendar, subregion`, message: 'needs a region' },
    ]);
  });

  it('a multi-day holiday is one inclusive range; a name without Latin letters keys by its English name', () => {
    const kr = expand({ calendar: { country: 'KR', years: [2026] } });
    expect(kr.issues).toEqual([]);
    expect(kr.entries.find((e) => e.key === 'kr-2026-korean-new-year')).toEqual({
      key: 'kr-2026-korean-new-year',
      name: '설날',
      start_date: '2026-02-17',
      end_date: '2026-02-19',
      origin: 'calendar KR 2026',
    });
  });

  it('exclude and rename by slug (every year) or by key (one year)', () => {
    const { issues, entries } = expand({
      calendar: {
        country: 'DE',
        region: 'BY',
        years: [2026, 2027],
        exclude: ['fronleichnam', 'de-by-2027-allerheiligen'],
        rename: { neujahr: 'New Year', 'de-by-2027-heilige-drei-konige': 'Epiphany' },
      },
    });
    expect(issues).toEqual([]);
    const keys = entries.map((e) => e.key);
    expect(keys).toHaveLength(12 + 12 - 3);
    expect(keys.filter((k) => k.includes('fronleichnam'))).toEqual([]);
    expect(keys).toContain('de-by-2026-allerheiligen');
    expect(keys).not.toContain('de-by-2027-allerheiligen');
    expect(entries.filter((e) => e.key.endsWith('neujahr')).map((e) => e.name)).toEqual(['New Year', 'New Year']);
    expect(entries.filter((e) => e.key.endsWith('konige')).map((e) => e.name)).toEqual([
      'Heilige Drei Könige',
      'Epiphany',
    ]);
  });
});

const ics = (name: string, ...lines: string[]) => {
  writeFileSync(
    join(dir, name),
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//t//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n'),
  );
  return `./${name}`;
};

describe('ics sources', () => {
  it('a moved occurrence keeps its key, EXDATE and cancelled events drop out, DURATION counts', () => {
    const file = ics(
      'r.ics',
      'BEGIN:VEVENT',
      'UID:summer@x',
      'DTSTART;VALUE=DATE:20250801',
      'DURATION:P2D',
      'RRULE:FREQ=YEARLY;COUNT=5',
      'EXDATE;VALUE=DATE:20280801',
      'SUMMARY:Summer break',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:summer@x',
      'RECURRENCE-ID;VALUE=DATE:20260801',
      'DTSTART;VALUE=DATE:20260810',
      'DTEND;VALUE=DATE:20260813',
      'SUMMARY:Summer break (moved)',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:gone@x',
      'DTSTART;VALUE=DATE:20260301',
      'STATUS:CANCELLED',
      'SUMMARY:Cancelled',
      'END:VEVENT',
    );
    const { issues, entries } = expand({ ics: { file, years: [2026, 2027, 2028] } });
    expect(issues).toEqual([]);
    expect(entries.map(({ key, name, start_date, end_date }) => [key, name, start_date, end_date])).toEqual([
      ['summer-x-2026-08-01', 'Summer break (moved)', '2026-08-10', '2026-08-12'],
      ['summer-x-2027-08-01', 'Summer break', '2027-08-01', '2027-08-02'],
    ]);
  });

  it('a recurring timed event is skipped with one warning, not one per occurrence', () => {
    const file = ics(
      'm.ics',
      'BEGIN:VEVENT',
      'UID:standup@x',
      'DTSTART:20260105T090000Z',
      'DTEND:20260105T091500Z',
      'RRULE:FREQ=WEEKLY',
      'SUMMARY:Standup',
      'END:VEVENT',
    );
    const { issues, entries, warnings } = expand({ ics: { file, years: [2026, 2027] } });
    expect([issues, entries]).toEqual([[], []]);
    expect(warnings).toEqual([
      `${join(dir, 'h.yaml')}, ics (./m.ics), event UID "standup@x" (recurring): skipped, a timed event is not a holiday (only all-day events are)`,
    ]);
  });

  it('a single event is keyed by its UID alone, so moving it keeps the key; its dated key is an alias', () => {
    const at = (day: string) =>
      validatePushFiles({
        holidays: {
          file: join(dir, 'h.yaml'),
          data: {
            ics: ics(
              'o.ics',
              'BEGIN:VEVENT',
              'UID:offsite@x',
              `DTSTART;VALUE=DATE:${day}`,
              'SUMMARY:Offsite',
              'END:VEVENT',
            ),
          },
        },
      }).files.holidays?.entries.map((e) => [e.entry.key, e.entry.start_date, e.aliases]);
    expect(at('20261005')).toEqual([['offsite-x', '2026-10-05', ['offsite-x-2026-10-05']]]);
    expect(at('20261012')).toEqual([['offsite-x', '2026-10-12', ['offsite-x-2026-10-12']]]);
  });

  it('a long UID becomes a hash; a single event outside years is left out', () => {
    const uid = `${'a'.repeat(70)}@example.com`;
    const file = ics(
      'u.ics',
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTART;VALUE=DATE:20261224',
      'SUMMARY:Eve',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:old@x',
      'DTSTART;VALUE=DATE:20240101',
      'SUMMARY:Old',
      'END:VEVENT',
    );
    const { issues, entries } = expand({ ics: [{ file, years: [2026] }] });
    expect(issues).toEqual([]);
    expect(entries.map((e) => e.key)).toEqual([expect.stringMatching(/^uid-[0-9a-f]{12}$/)]);
    expect(entries[0]!.origin).toBe(`./u.ics UID ${uid}`);
  });
});

describe('ics sources: inputs real exporters write', () => {
  const where = (name: string) => `${join(dir, 'h.yaml')}, ics (./${name})`;
  const one = (name: string) => expand({ ics: { file: `./${name}`, years: [2026, 2027] } });

  it('a byte-order mark is dropped; an empty file and non-UTF-8 text are refused, naming the line', () => {
    const body = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:m@x', 'DTSTART;VALUE=DATE:20261005'];
    writeFileSync(
      join(dir, 'bom.ics'),
      `\uFEFF${[...body, 'SUMMARY:München', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n')}`,
    );
    expect(one('bom.ics').entries.map((e) => [e.key, e.name])).toEqual([['m-x', 'München']]);
    writeFileSync(join(dir, 'empty.ics'), '');
    expect(one('empty.ics').issues).toEqual([
      { path: where('empty.ics'), message: 'empty file; expected BEGIN:VCALENDAR' },
    ]);
    writeFileSync(
      join(dir, 'latin1.ics'),
      Buffer.from([...body, 'SUMMARY:München', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n'), 'latin1'),
    );
    expect(one('latin1.ics').issues).toEqual([
      { path: `${where('latin1.ics')}, line 6`, message: 'not UTF-8 text; save the file as UTF-8' },
    ]);
  });

  it('impossible dates, DTEND before DTSTART and a missing DTSTART are refused with UID and line', () => {
    const file = ics(
      'bad.ics',
      'BEGIN:VEVENT',
      'UID:feb@x',
      'DTSTART;VALUE=DATE:20260230',
      'SUMMARY:Feb 30',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:month@x',
      'DTSTART;VALUE=DATE:2026',
      ' 1345',
      'SUMMARY:Month 13',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:back@x',
      'DTSTART;VALUE=DATE:20261010',
      'DTEND;VALUE=DATE:20261008',
      'SUMMARY:Backwards',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:nostart@x',
      'SUMMARY:No start',
      'BEGIN:VALARM',
      'DTSTART:20261010T090000Z',
      'END:VALARM',
      'END:VEVENT',
    );
    const w = where(file.slice(2));
    expect(one(file.slice(2)).issues).toEqual([
      { path: `${w}, event UID "feb@x", DTSTART (line 6)`, message: 'not a real calendar date (20260230)' },
      { path: `${w}, event UID "month@x", DTSTART (line 11)`, message: 'not a real calendar date (20261345)' },
      { path: `${w}, event UID "back@x", DTEND (line 18)`, message: 'before DTSTART (20261010)' },
      { path: `${w}, event UID "nostart@x", VEVENT at line 21`, message: 'DTSTART: required' },
    ]);
  });

  it("Outlook's all-day flag and a date-time UNTIL on an all-day series are honoured", () => {
    const file = ics(
      'outlook.ics',
      'BEGIN:VEVENT',
      'UID:xmas@x',
      'DTSTART;VALUE=DATE:20261225',
      'DTEND;VALUE=DATE:20261226',
      'RRULE:FREQ=YEARLY;UNTIL=20271224T230000Z',
      'SUMMARY:Christmas',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:offsite@x',
      'DTSTART;TZID=W. Europe Standard Time:20261005T000000',
      'DTEND;TZID=W. Europe Standard Time:20261007T000000',
      'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
      'SUMMARY:Offsite',
      'END:VEVENT',
    );
    const { issues, entries, warnings } = one(file.slice(2));
    expect([issues, warnings]).toEqual([[], []]);
    expect(entries.map(({ key, start_date, end_date }) => [key, start_date, end_date])).toEqual([
      ['xmas-x-2026-12-25', '2026-12-25', '2026-12-25'],
      ['xmas-x-2027-12-25', '2027-12-25', '2027-12-25'],
      ['offsite-x', '2026-10-05', '2026-10-06'],
    ]);
  });
});
