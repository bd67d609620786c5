// Obsidian's daily-note names are moment.js formats. The expected names below were recorded from
// moment 2.30.1 itself (moment.utc(day).locale(l).format(f)); the formats are Obsidian's default
// (Help → Daily notes: `YYYY-MM-DD`), nested-folder formats from the Obsidian forum
// (`YYYY/MM/YYYY-MM-DD`, `YYYY/MM-MMMM/YYYY-MM-DD-dddd`), and the weekly/ISO forms of Periodic Notes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/core/errors.js';
import {
  type DayParts,
  dayFormatError,
  formatDateTime,
  formatDay,
  MAX_DAY_TEXT_LENGTH,
  type MomentLocale,
  parseDayByFormat,
} from '../../src/time/moment-format.js';

const day = (text: string): DayParts => {
  const [year, month, d] = text.split('-').map(Number);
  return { year: year!, month: month!, day: d! };
};

// [format, locale, 2026-12-02 (a Wednesday), 2023-01-01 (a Sunday, ISO week 52 of 2022), 2024-12-30 (ISO week 1 of 2025)]
const REAL_FORMATS: Array<[string, MomentLocale, string, string, string]> = [
  ['YYYY-MM-DD', 'en', '2026-12-02', '2023-01-01', '2024-12-30'],
  ['YYYY/MM/YYYY-MM-DD', 'en', '2026/12/2026-12-02', '2023/01/2023-01-01', '2024/12/2024-12-30'],
  [
    'YYYY/MM-MMMM/YYYY-MM-DD-dddd',
    'en',
    '2026/12-December/2026-12-02-Wednesday',
    '2023/01-January/2023-01-01-Sunday',
    '2024/12-December/2024-12-30-Monday',
  ],
  [
    'YYYY/YYYY-MM/YYYY-MM-DD',
    'en',
    '2026/2026-12/2026-12-02',
    '2023/2023-01/2023-01-01',
    '2024/2024-12/2024-12-30',
  ],
  [
    'dddd, MMMM Do YYYY',
    'en',
    'Wednesday, December 2nd 2026',
    'Sunday, January 1st 2023',
    'Monday, December 30th 2024',
  ],
  ['DD-MM-YYYY', 'en', '02-12-2026', '01-01-2023', '30-12-2024'],
  ['MM-DD-YYYY', 'en', '12-02-2026', '01-01-2023', '12-30-2024'],
  ['YYYYMMDD', 'en', '20261202', '20230101', '20241230'],
  ['YYYY-MM-DD ddd', 'en', '2026-12-02 Wed', '2023-01-01 Sun', '2024-12-30 Mon'],
  [
    '[Journal]/YYYY/[Q]Q/YYYY-MM-DD',
    'en',
    'Journal/2026/Q4/2026-12-02',
    'Journal/2023/Q1/2023-01-01',
    'Journal/2024/Q4/2024-12-30',
  ],
  ['GGGG-[W]WW-E', 'en', '2026-W49-3', '2022-W52-7', '2025-W01-1'],
  ['gggg-[W]ww-e', 'en', '2026-W49-3', '2023-W01-0', '2025-W01-1'],
  ['YYYY-DDDD', 'en', '2026-336', '2023-001', '2024-365'],
  ['ddd, MMM D, YYYY', 'en', 'Wed, Dec 2, 2026', 'Sun, Jan 1, 2023', 'Mon, Dec 30, 2024'],
  ['L', 'en', '12/02/2026', '01/01/2023', '12/30/2024'],
  ['LL', 'en', 'December 2, 2026', 'January 1, 2023', 'December 30, 2024'],
  ['YY.MM.DD', 'en', '26.12.02', '23.01.01', '24.12.30'],
  ['YYYY年MM月DD日', 'zh-cn', '2026年12月02日', '2023年01月01日', '2024年12月30日'],
  ['YYYY-MM-DD dddd', 'zh-cn', '2026-12-02 星期三', '2023-01-01 星期日', '2024-12-30 星期一'],
  [
    'YYYY/MM-MMMM/YYYY-MM-DD-dddd',
    'zh-cn',
    '2026/12-十二月/2026-12-02-星期三',
    '2023/01-一月/2023-01-01-星期日',
    '2024/12-十二月/2024-12-30-星期一',
  ],
  ['YYYY年M月D日 ddd', 'zh-cn', '2026年12月2日 周三', '2023年1月1日 周日', '2024年12月30日 周一'],
  ['MMM Do dd YYYY', 'zh-cn', '12月 2日 三 2026', '1月 1日 日 2023', '12月 30日 一 2024'],
  // zh-cn weeks start on Monday and follow ISO's first week: e is 0 on Monday
  ['gggg-[W]ww-e', 'zh-cn', '2026-W49-2', '2022-W52-6', '2025-W01-0'],
  ['LL', 'zh-cn', '2026年12月2日', '2023年1月1日', '2024年12月30日'],
];
const DAYS = ['2026-12-02', '2023-01-01', '2024-12-30'];

describe('real Obsidian daily-note formats', () => {
  it.each(REAL_FORMATS)(
    '%s (%s) names days as moment does and reads them back',
    (format, locale, ...names) => {
      expect(dayFormatError(format, locale)).toBeUndefined();
      names.forEach((name, i) => {
        expect(formatDay(day(DAYS[i]!), format, locale)).toBe(name);
        expect(parseDayByFormat(name, format, locale)).toEqual(day(DAYS[i]!));
      });
    },
  );

  it('reads back every day of 1970–2100 in each real format', () => {
    let checked = 0;
    for (const [format, locale] of REAL_FORMATS) {
      if (format.startsWith('YY.')) continue; // two-digit years cover 1969–2068 only (below)
      // every 11th day: each weekday, month day and week of the years 1970–2100 comes round
      for (let n = 0; n <= 47846; n += 11) {
        const d = new Date(n * 86_400_000);
        const want = { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
        expect(parseDayByFormat(formatDay(want, format, locale), format, locale)).toEqual(want);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(90_000);
  });

  it('reads two-digit years as moment does: 69–99 are 1969–1999, 00–68 are 2000–2068', () => {
    expect(parseDayByFormat('69.01.01', 'YY.MM.DD')).toEqual(day('1969-01-01'));
    expect(parseDayByFormat('68.12.31', 'YY.MM.DD')).toEqual(day('2068-12-31'));
  });

  it('takes a template clock for {{time}}: time tokens, meridiem and offsets as moment writes them', () => {
    const at = {
      year: 2026,
      month: 12,
      day: 2,
      hour: 13,
      minute: 5,
      second: 7,
      millisecond: 89,
      offsetMinutes: 480,
    };
    expect(formatDateTime(at, 'YYYY-MM-DDTHH:mm:ss.SSSZ X x h A a k', 'en')).toBe(
      '2026-12-02T13:05:07.089+08:00 1796187907 1796187907089 1 PM pm 13',
    );
    expect(formatDateTime({ ...at, hour: 0 }, 'hh:mm a kk', 'en')).toBe('12:05 am 24');
    expect(formatDateTime(at, 'LLLL', 'zh-cn')).toBe('2026年12月2日星期三下午1点05分');
    expect(formatDateTime({ ...at, hour: 8 }, 'A', 'zh-cn')).toBe('早上');
    expect(() => formatDay(day('2026-12-02'), 'YYYY-MM-DD HH:mm')).toThrow(/HH is a time of day/);
  });
});

// Random formats built from the day tokens (and literal text between them).
const TOKENS = [
  'YYYY',
  'YY',
  'Y',
  'M',
  'MM',
  'MMM',
  'MMMM',
  'Mo',
  'D',
  'DD',
  'Do',
  'DDD',
  'DDDD',
  'd',
  'dd',
  'ddd',
  'dddd',
  'E',
  'e',
  'W',
  'WW',
  'Wo',
  'w',
  'ww',
  'GGGG',
  'gggg',
  'Q',
  'Qo',
];
const SEPARATORS = ['-', '/', ' ', '', '[W]', ', ', '.', '[Daily note] ', '\\D', '_', '年'];
const formatArb = fc
  .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 7 })
  .map((pairs) => pairs.map(([t, s]) => t + s).join(''));
// Every day of 1970–2100, as days since 1970-01-01
const dayArb = fc.integer({ min: 0, max: 47846 }).map((n) => {
  const d = new Date(n * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
});
const localeArb = fc.constantFrom<MomentLocale>('en', 'zh-cn');
const onlyTwoDigitYear = (format: string) => /YY/.test(format) && !/YYYY|(^|[^Y])Y([^Y]|$)/.test(format);

describe('any format from the tokens', () => {
  it('reads every day it names back as that day, when dayFormatError accepts it', () => {
    fc.assert(
      fc.property(formatArb, dayArb, localeArb, (format, d, locale) => {
        const name = formatDay(d, format, locale);
        if (dayFormatError(format, locale) !== undefined) return;
        const back = parseDayByFormat(name, format, locale);
        // A format whose only year is YY names the years 1969–2068 (moment's pivot)
        if (onlyTwoDigitYear(format) && (d.year > 2068 || d.year < 1969)) {
          expect(back === undefined || formatDay(back, format, locale) === name).toBe(true);
          return;
        }
        expect(back).toEqual(d);
      }),
      { numRuns: 3000 },
    );
  });

  it('never reads a text that does not round-trip, and refuses what the format did not write', () => {
    fc.assert(
      fc.property(formatArb, dayArb, localeArb, fc.string({ maxLength: 3 }), (format, d, locale, junk) => {
        const name = formatDay(d, format, locale);
        const back = parseDayByFormat(name + junk, format, locale);
        if (back !== undefined) expect(formatDay(back, format, locale)).toBe(name + junk);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('invalid days are refused', () => {
  it.each([
    ['2023-02-30', 'YYYY-MM-DD'],
    ['2023-02-29', 'YYYY-MM-DD'],
    ['2023-13-01', 'YYYY-MM-DD'],
    ['2023-00-10', 'YYYY-MM-DD'],
    ['2023-2-3', 'YYYY-MM-DD'],
    [' 2023-02-03', 'YYYY-MM-DD'],
    ['2023-02-03 ', 'YYYY-MM-DD'],
    ['2023-02-03.md', 'YYYY-MM-DD'],
    ['2026-12-02 Thursday', 'YYYY-MM-DD dddd'],
    ['2026-12-02 wednesday', 'YYYY-MM-DD dddd'],
    ['December 2th 2026', 'MMMM Do YYYY'],
    ['2023-366', 'YYYY-DDDD'],
    ['2026-W54-1', 'GGGG-[W]WW-E'],
    ['2025-W53-1', 'GGGG-[W]WW-E'],
    ['2026-W10-8', 'GGGG-[W]WW-E'],
    ['2026-02-03', 'YYYY-MM'],
    ['2026-12-02', ''],
  ])('%s in %s', (text, format) => {
    expect(parseDayByFormat(text, format)).toBeUndefined();
  });

  it('refuses to name a day that does not exist', () => {
    for (const bad of ['2023-02-29', '2023-04-31', '2023-13-01', '2023-00-01', '2023-01-00'])
      expect(() => formatDay(day(bad), 'YYYY-MM-DD')).toThrow(/is no day of the calendar/);
    expect(() => formatDay({ year: 2023, month: 1.5, day: 1 }, 'YYYY-MM-DD')).toThrow(MemError);
  });

  it('accepts the leap day and week 53 where they exist', () => {
    expect(parseDayByFormat('2024-02-29', 'YYYY-MM-DD')).toEqual(day('2024-02-29'));
    expect(parseDayByFormat('2026-W53-4', 'GGGG-[W]WW-E')).toEqual(day('2026-12-31'));
    expect(parseDayByFormat('2024-366', 'YYYY-DDDD')).toEqual(day('2024-12-31'));
  });
});

describe('dayFormatError', () => {
  it.each([
    ['', /empty/],
    ['MM-DD', /no year/],
    ['YYYY-MM', /names no single day/],
    ['YYYY', /names no single day/],
    ['YYYY-[W]WW-E', /needs GGGG/],
    ['GGGG-[W]WW', /add E/],
    ['gggg-[W]ww', /add e or d/],
    ['YYYY-[W]ww-e', /needs gggg/],
    ['YYYY-MM-DD HH:mm', /HH is a time of day/],
    ['Daily YYYY-MM-DD', /a is a time of day/],
    ['YYYYMD', /M is followed directly by D/],
    ['YYYY-MDo', /M is followed directly by Do/],
    ['YYYY-N-MM-DD', /era/],
    ['Y'.repeat(300), /longer than 256/],
  ])('%j is refused', (format, message) => {
    expect(dayFormatError(format)).toMatch(message);
  });

  it('accepts escaped words and backslash-escaped letters', () => {
    expect(dayFormatError('[Daily] YYYY-MM-DD')).toBeUndefined();
    expect(formatDay(day('2026-12-02'), '[Daily] YYYY-MM-DD \\D\\a\\y')).toBe('Daily 2026-12-02 Day');
  });
});

describe('hostile input stays fast', () => {
  it('bounds the text it reads and the readings it tries', () => {
    const started = performance.now();
    expect(parseDayByFormat('1'.repeat(MAX_DAY_TEXT_LENGTH + 1), 'YYYYMMDD')).toBeUndefined();
    expect(parseDayByFormat('2'.repeat(100_000), 'YYYY-MM-DD')).toBeUndefined();
    // Variable-width numbers with a digit between them: every split is a reading to try.
    const format = `YYYY-MM-${'D[1]'.repeat(40)}`;
    expect(dayFormatError(format)).toBeUndefined();
    expect(parseDayByFormat(`2023-01-${'1'.repeat(119)}2`, format)).toBeUndefined();
    const dm = `YYYY-${'M[1]D[1]'.repeat(30)}`;
    expect(parseDayByFormat(`2023-${'1'.repeat(200)}2`, dm)).toBeUndefined();
    expect(dayFormatError('['.repeat(10_000))).toMatch(/longer than/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('still reads a real name in such a format', () => {
    const format = `YYYY-MM-${'D[1]'.repeat(5)}`;
    const name = formatDay(day('2023-01-11'), format);
    expect(name).toBe(`2023-01-${'1'.repeat(15)}`);
    expect(parseDayByFormat(name, format)).toEqual(day('2023-01-11'));
  });
});
