// Obsidian names daily notes with moment.js format strings (`YYYY-MM-DD`, `YYYY/MM/YYYY-MM-DD-dddd`,
// `gggg-[W]ww-e`). This is moment's formatting for the day tokens (and the time tokens a template's
// {{time:…}} needs), and a strict reader of such names: the whole text must match, the day must
// exist, and formatting the day must give the text back, as Obsidian's own moment(text, format, true)
// finds a daily note. Tokens and locale data: moment-tokens.ts. Pure: no clock, no zone, no files.

import { MemError } from '../core/errors.js';
import {
  type DayParts,
  dayFromWeek,
  dayOfYear,
  daysInMonth,
  daysInYear,
  epochDay,
  fromEpochDay,
  weekdayOf,
  weekOfYear,
  weeksInYear,
} from './moment-calendar.js';
import {
  DAY_TOKENS,
  ERA_TOKENS,
  type FormatPart,
  type LocaleData,
  localeData,
  MAX_FORMAT_LENGTH,
  type MomentLocale,
  tokenize,
} from './moment-tokens.js';

export type { DayParts } from './moment-calendar.js';
export type { MomentLocale } from './moment-tokens.js';

/** A wall-clock reading: a day and a time of day, with the zone's offset when `Z`/`X` need it. */
export interface DateTimeParts extends DayParts {
  hour: number;
  minute: number;
  second?: number;
  millisecond?: number;
  /** Minutes east of UTC (Shanghai: 480); 0 when absent */
  offsetMinutes?: number;
}

/** Longest text parseDayByFormat reads; a daily note's name is far shorter. */
export const MAX_DAY_TEXT_LENGTH = 512;

// ---- formatting ----

/** moment's zeroFill: at least `width` digits, `-` for a negative number, `+` when forced. */
function zeroFill(n: number, width: number, forceSign = false): string {
  const abs = String(Math.abs(n));
  const sign = n >= 0 ? (forceSign ? '+' : '') : '-';
  return sign + abs.padStart(width, '0');
}

interface Ctx {
  t: Required<DateTimeParts>;
  loc: LocaleData;
  /** 0 = Sunday */
  wd: number;
  locWeek: () => { week: number; year: number };
  isoWeek: () => { week: number; year: number };
  h12: number;
}

const yy = (year: number) => zeroFill(((year % 100) + 100) % 100, 2);
const offset = (off: number, sep: string) =>
  `${off < 0 ? '-' : '+'}${zeroFill(Math.trunc(Math.abs(off) / 60), 2)}${sep}${zeroFill(Math.abs(off) % 60, 2)}`;
function epochMs({ t }: Ctx): number {
  const minutes = t.hour * 60 + t.minute - t.offsetMinutes;
  return epochDay(t.year, t.month, t.day) * 86_400_000 + (minutes * 60 + t.second) * 1000 + t.millisecond;
}

/** moment's format functions, token by token (src/lib/units/*.js). */
const FORMAT: Record<string, (c: Ctx) => string> = {
  M: ({ t }) => String(t.month),
  MM: ({ t }) => zeroFill(t.month, 2),
  MMM: ({ t, loc }) => loc.monthsShort[t.month - 1]!,
  MMMM: ({ t, loc }) => loc.months[t.month - 1]!,
  Mo: ({ t, loc }) => loc.ordinal(t.month, 'M'),
  D: ({ t }) => String(t.day),
  DD: ({ t }) => zeroFill(t.day, 2),
  Do: ({ t, loc }) => loc.ordinal(t.day, 'D'),
  DDD: ({ t }) => String(dayOfYear(t)),
  DDDD: ({ t }) => zeroFill(dayOfYear(t), 3),
  DDDo: ({ t, loc }) => loc.ordinal(dayOfYear(t), 'DDD'),
  d: ({ wd }) => String(wd),
  do: ({ wd, loc }) => loc.ordinal(wd, 'd'),
  dd: ({ wd, loc }) => loc.weekdaysMin[wd]!,
  ddd: ({ wd, loc }) => loc.weekdaysShort[wd]!,
  dddd: ({ wd, loc }) => loc.weekdays[wd]!,
  e: ({ wd, loc }) => String((wd + 7 - loc.week.dow) % 7),
  E: ({ wd }) => String(wd || 7),
  w: (c) => String(c.locWeek().week),
  ww: (c) => zeroFill(c.locWeek().week, 2),
  wo: (c) => c.loc.ordinal(c.locWeek().week, 'w'),
  W: (c) => String(c.isoWeek().week),
  WW: (c) => zeroFill(c.isoWeek().week, 2),
  Wo: (c) => c.loc.ordinal(c.isoWeek().week, 'W'),
  Q: ({ t }) => String(Math.ceil(t.month / 3)),
  Qo: ({ t, loc }) => loc.ordinal(Math.ceil(t.month / 3), 'Q'),
  Y: ({ t }) => (t.year <= 9999 ? zeroFill(t.year, 4) : `+${t.year}`),
  YY: ({ t }) => yy(t.year),
  YYYY: ({ t }) => zeroFill(t.year, 4),
  YYYYY: ({ t }) => zeroFill(t.year, 5),
  YYYYYY: ({ t }) => zeroFill(t.year, 6, true),
  gg: (c) => yy(c.locWeek().year),
  gggg: (c) => zeroFill(c.locWeek().year, 4),
  ggggg: (c) => zeroFill(c.locWeek().year, 5),
  GG: (c) => yy(c.isoWeek().year),
  GGGG: (c) => zeroFill(c.isoWeek().year, 4),
  GGGGG: (c) => zeroFill(c.isoWeek().year, 5),
  H: ({ t }) => String(t.hour),
  HH: ({ t }) => zeroFill(t.hour, 2),
  h: ({ h12 }) => String(h12),
  hh: ({ h12 }) => zeroFill(h12, 2),
  k: ({ t }) => String(t.hour || 24),
  kk: ({ t }) => zeroFill(t.hour || 24, 2),
  m: ({ t }) => String(t.minute),
  mm: ({ t }) => zeroFill(t.minute, 2),
  s: ({ t }) => String(t.second),
  ss: ({ t }) => zeroFill(t.second, 2),
  Hmm: ({ t }) => `${t.hour}${zeroFill(t.minute, 2)}`,
  Hmmss: ({ t }) => `${t.hour}${zeroFill(t.minute, 2)}${zeroFill(t.second, 2)}`,
  hmm: ({ t, h12 }) => `${h12}${zeroFill(t.minute, 2)}`,
  hmmss: ({ t, h12 }) => `${h12}${zeroFill(t.minute, 2)}${zeroFill(t.second, 2)}`,
  a: ({ t, loc }) => loc.meridiem(t.hour, t.minute, true),
  A: ({ t, loc }) => loc.meridiem(t.hour, t.minute, false),
  Z: ({ t }) => offset(t.offsetMinutes, ':'),
  ZZ: ({ t }) => offset(t.offsetMinutes, ''),
  // moment's zoneAbbr is empty outside UTC mode
  z: () => '',
  zz: () => '',
  X: (c) => String(Math.floor(epochMs(c) / 1000)),
  x: (c) => String(epochMs(c)),
};

function formatToken(token: string, c: Ctx): string {
  const format = FORMAT[token];
  if (format) return format(c);
  // S … SSSSSSSSS: fractions of a second; a clock here is precise to the millisecond.
  if (/^S+$/.test(token))
    return zeroFill(c.t.millisecond, 3).slice(0, token.length).padEnd(token.length, '0');
  throw new MemError('INVALID_ARGUMENT', `moment token ${token} (an era) is not supported`);
}

function checkDay(day: DayParts): void {
  const { year, month, day: date } = day;
  const real =
    [year, month, date].every(Number.isInteger) &&
    month >= 1 &&
    month <= 12 &&
    date >= 1 &&
    date <= daysInMonth(year, month);
  if (!real) throw new MemError('INVALID_ARGUMENT', `${JSON.stringify(day)} is no day of the calendar`);
}

function checkFormat(format: string): void {
  if (typeof format !== 'string') throw new MemError('INVALID_ARGUMENT', 'a date format must be a string');
  if (format.length > MAX_FORMAT_LENGTH)
    throw new MemError(
      'INVALID_ARGUMENT',
      `date format is ${format.length} characters; at most ${MAX_FORMAT_LENGTH}`,
    );
}

function render(parts: readonly FormatPart[], t: Required<DateTimeParts>, loc: LocaleData): string {
  const wd = weekdayOf(epochDay(t.year, t.month, t.day));
  const c: Ctx = {
    t,
    loc,
    wd,
    locWeek: () => weekOfYear(t, loc.week.dow, loc.week.doy),
    isoWeek: () => weekOfYear(t, 1, 4),
    h12: t.hour % 12 || 12,
  };
  let out = '';
  for (const part of parts) out += 'literal' in part ? part.literal : formatToken(part.token, c);
  return out;
}

/** `at` formatted as moment(at).format(format) would, in `locale`. */
export function formatDateTime(at: DateTimeParts, format: string, locale: MomentLocale = 'en'): string {
  checkFormat(format);
  checkDay(at);
  const full = { second: 0, millisecond: 0, offsetMinutes: 0, ...at } as Required<DateTimeParts>;
  return render(tokenize(format, locale), full, localeData(locale));
}

/** `day` formatted as moment would; a format holding a time of day (HH, a, X …) is refused. */
export function formatDay(day: DayParts, format: string, locale: MomentLocale = 'en'): string {
  checkFormat(format);
  checkDay(day);
  const parts = tokenize(format, locale);
  const timed = parts.find((p) => 'token' in p && !DAY_TOKENS.has(p.token));
  if (timed && 'token' in timed)
    throw new MemError(
      'INVALID_ARGUMENT',
      `date format ${JSON.stringify(format)}: ${tokenProblem(timed.token)}`,
    );
  const t = { ...day, hour: 0, minute: 0, second: 0, millisecond: 0, offsetMinutes: 0 };
  return render(parts, t, localeData(locale));
}

function tokenProblem(token: string): string {
  if (ERA_TOKENS.has(token)) return `${token} is an era token, which memvault does not support`;
  return `${token} is a time of day (escape literal letters as [${token}]); a day's name cannot hold it`;
}

// ---- which formats name one day ----

/** What each day token tells about the day, for dayFormatError and the parser. */
const FIELD: Record<string, string> = {
  YYYY: 'year',
  Y: 'year',
  YYYYY: 'year',
  YYYYYY: 'year',
  YY: 'yy',
  M: 'month',
  MM: 'month',
  MMM: 'month',
  MMMM: 'month',
  Mo: 'month',
  D: 'date',
  DD: 'date',
  Do: 'date',
  DDD: 'doy',
  DDDD: 'doy',
  DDDo: 'doy',
  d: 'weekday',
  do: 'weekday',
  dd: 'weekday',
  ddd: 'weekday',
  dddd: 'weekday',
  e: 'localWeekday',
  E: 'isoWeekday',
  W: 'isoWeek',
  WW: 'isoWeek',
  Wo: 'isoWeek',
  GGGG: 'isoYear',
  GGGGG: 'isoYear',
  GG: 'isoYy',
  w: 'week',
  ww: 'week',
  wo: 'week',
  gggg: 'weekYear',
  ggggg: 'weekYear',
  gg: 'weekYy',
  Q: 'quarter',
  Qo: 'quarter',
};

/** Numbers written with as many digits as they need (`M`: 1 or 12), and what starts with one. */
const VARIABLE_NUMBER = new Set(['M', 'D', 'DDD', 'w', 'W']);
const startsWithVariableNumber = (token: string, locale: MomentLocale) =>
  VARIABLE_NUMBER.has(token) || token.endsWith('o') || (locale === 'zh-cn' && token === 'MMM');

/**
 * Why `format` cannot name daily notes, or undefined when every day gets a name of its own that
 * reads back as that day. Refused: time-of-day and era tokens, no year, no day within the year,
 * an ISO week (W) with the calendar year (YYYY) instead of GGGG (or w with YYYY instead of gggg),
 * and two numbers of varying width side by side (`YYYYMD`: 1-11 and 11-1 would share `2023111`).
 */
export function dayFormatError(format: string, locale: MomentLocale = 'en'): string | undefined {
  if (typeof format !== 'string' || format.trim() === '') return 'the date format is empty';
  if (format.length > MAX_FORMAT_LENGTH)
    return `the date format is longer than ${MAX_FORMAT_LENGTH} characters`;
  const quoted = JSON.stringify(format);
  const parts = tokenize(format, locale);
  const has = new Set<string>();
  for (const part of parts) {
    if ('literal' in part) continue;
    if (!DAY_TOKENS.has(part.token)) return `date format ${quoted}: ${tokenProblem(part.token)}`;
    has.add(FIELD[part.token]!);
  }
  for (let i = 1; i < parts.length; i++) {
    const [a, b] = [parts[i - 1]!, parts[i]!];
    if (
      'token' in a &&
      'token' in b &&
      VARIABLE_NUMBER.has(a.token) &&
      startsWithVariableNumber(b.token, locale)
    )
      return `date format ${quoted}: ${a.token} is followed directly by ${b.token}, so two days can get the same name; pad one (${a.token}${a.token}) or put a separator between them`;
  }
  const year = has.has('year') || has.has('yy');
  if (has.has('month') && has.has('date') && year) return undefined;
  if (has.has('doy') && year) return undefined;
  if (has.has('isoWeek')) {
    if (!has.has('isoYear') && !has.has('isoYy'))
      return `date format ${quoted}: W (ISO week) needs GGGG, the ISO week's year; with YYYY the days around New Year get the wrong name`;
    if (!has.has('isoWeekday'))
      return `date format ${quoted}: W (ISO week) names a week, not a day; add E (ISO weekday, 1-7)`;
    return undefined;
  }
  if (has.has('week')) {
    if (!has.has('weekYear') && !has.has('weekYy'))
      return `date format ${quoted}: w (week of year) needs gggg, the week's year; with YYYY the days around New Year get the wrong name`;
    if (!has.has('localWeekday') && !has.has('weekday'))
      return `date format ${quoted}: w (week of year) names a week, not a day; add e or d (day of week)`;
    return undefined;
  }
  if (!year && !has.has('isoYear') && !has.has('weekYear'))
    return `date format ${quoted} has no year (YYYY): the same day of different years would share a name`;
  return `date format ${quoted} names no single day: it needs a month and a day of the month (MM, DD), a day of the year (DDDD), or an ISO week and weekday (GGGG, WW, E)`;
}

// ---- reading a day back ----

/** Digits a number token takes when read strictly: [fewest, most] (moment's strict regexes). */
const WIDTH: Record<string, [number, number]> = {
  M: [1, 2],
  MM: [2, 2],
  D: [1, 2],
  DD: [2, 2],
  DDD: [1, 3],
  DDDD: [3, 3],
  d: [1, 1],
  e: [1, 1],
  E: [1, 1],
  Q: [1, 1],
  w: [1, 2],
  ww: [2, 2],
  W: [1, 2],
  WW: [2, 2],
  YY: [2, 2],
  YYYY: [4, 4],
  Y: [4, 6],
  YYYYY: [5, 5],
  YYYYYY: [6, 6],
  gg: [2, 2],
  gggg: [4, 4],
  ggggg: [5, 5],
  GG: [2, 2],
  GGGG: [4, 4],
  GGGGG: [5, 5],
};
/** The unit each ordinal token passes to the locale's ordinal() */
const ORDINAL: Record<string, string> = { Mo: 'M', Do: 'D', DDDo: 'DDD', do: 'd', wo: 'w', Wo: 'W', Qo: 'Q' };
const NAMES: Record<string, (loc: LocaleData) => readonly string[]> = {
  MMM: (loc) => loc.monthsShort,
  MMMM: (loc) => loc.months,
  dd: (loc) => loc.weekdaysMin,
  ddd: (loc) => loc.weekdaysShort,
  dddd: (loc) => loc.weekdays,
};

/** The readings of `token` at `pos`: [value, characters taken], longest first (moment is greedy). */
function candidates(token: string, text: string, pos: number, loc: LocaleData): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const names = NAMES[token]?.(loc);
  if (names) {
    const first = token.startsWith('M') ? 1 : 0;
    names.forEach((name, k) => {
      if (text.startsWith(name, pos)) out.push([k + first, name.length]);
    });
    return out.sort((a, b) => b[1] - a[1]);
  }
  const unit = ORDINAL[token];
  if (unit !== undefined) {
    for (let len = 3; len >= 1; len--) {
      const digits = text.slice(pos, pos + len);
      if (!/^\d+$/.test(digits) || digits.length !== len) continue;
      const written = loc.ordinal(Number(digits), unit);
      if (text.startsWith(written, pos)) out.push([Number(digits), written.length]);
    }
    return out;
  }
  const [fewest, most] = WIDTH[token]!;
  const sign = (token === 'Y' || token === 'YYYYYY') && /[+-]/.test(text[pos] ?? '') ? 1 : 0;
  for (let len = most; len >= fewest; len--) {
    const digits = text.slice(pos + sign, pos + sign + len);
    if (digits.length !== len || !/^\d+$/.test(digits)) continue;
    out.push([(text[pos] === '-' && sign ? -1 : 1) * Number(digits), sign + len]);
  }
  return out;
}

/** moment's parseTwoDigitYear: 69–99 are 1969–1999, 00–68 are 2000–2068. */
const pivot = (n: number | undefined) => (n === undefined ? undefined : n + (n > 68 ? 1900 : 2000));
const within = (n: number | undefined, low: number, high: number): n is number =>
  n !== undefined && Number.isInteger(n) && n >= low && n <= high;

/** The day the fields read name, or undefined when they name none (2023-02-30, week 54). */
function resolve(values: Map<string, number>, loc: LocaleData): DayParts | undefined {
  const year = values.get('year') ?? pivot(values.get('yy'));
  const [month, date, doy] = [values.get('month'), values.get('date'), values.get('doy')];
  if (year !== undefined && month !== undefined && date !== undefined) {
    if (!within(month, 1, 12) || !within(date, 1, daysInMonth(year, month))) return undefined;
    return { year, month, day: date };
  }
  if (year !== undefined && doy !== undefined) {
    return within(doy, 1, daysInYear(year)) ? fromEpochDay(epochDay(year, 1, 1) + doy - 1) : undefined;
  }
  const isoYear = values.get('isoYear') ?? pivot(values.get('isoYy'));
  const isoWeek = values.get('isoWeek');
  if (isoYear !== undefined && isoWeek !== undefined) {
    const weekday = values.get('isoWeekday');
    if (!within(isoWeek, 1, weeksInYear(isoYear, 1, 4)) || !within(weekday, 1, 7)) return undefined;
    return dayFromWeek(isoYear, isoWeek, weekday % 7, 1, 4);
  }
  const weekYear = values.get('weekYear') ?? pivot(values.get('weekYy'));
  const week = values.get('week');
  const { dow, doy: firstDay } = loc.week;
  if (weekYear === undefined || week === undefined) return undefined;
  const local = values.get('localWeekday');
  const weekday = values.get('weekday') ?? (local === undefined ? undefined : (local + dow) % 7);
  if (!within(week, 1, weeksInYear(weekYear, dow, firstDay)) || !within(weekday, 0, 6)) return undefined;
  return dayFromWeek(weekYear, week, weekday, dow, firstDay);
}

/** Readings tried before giving up: ample for any real name, bounded for a hostile one. */
const PARSE_STEPS = 20_000;

/**
 * The day `text` names in `format`, read strictly: all of it must match, the day must exist, and
 * formatDay must give `text` back (so `2023111` in `YYYYMD` is refused as ambiguous only when no
 * reading round-trips). Undefined for text longer than MAX_DAY_TEXT_LENGTH and for a format
 * dayFormatError refuses. Among several readings the greedy one (moment's) comes first.
 */
export function parseDayByFormat(
  text: string,
  format: string,
  locale: MomentLocale = 'en',
): DayParts | undefined {
  if (typeof text !== 'string' || text.length > MAX_DAY_TEXT_LENGTH) return undefined;
  if (dayFormatError(format, locale) !== undefined) return undefined;
  const parts = tokenize(format, locale);
  const loc = localeData(locale);
  const values = new Map<string, number>();
  let steps = PARSE_STEPS;
  const walk = (i: number, pos: number): DayParts | undefined => {
    if (--steps < 0) return undefined;
    const part = parts[i];
    if (part === undefined) {
      if (pos !== text.length) return undefined;
      const day = resolve(values, loc);
      return day && formatDay(day, format, locale) === text ? day : undefined;
    }
    if ('literal' in part)
      return text.startsWith(part.literal, pos) ? walk(i + 1, pos + part.literal.length) : undefined;
    const field = FIELD[part.token]!;
    for (const [value, length] of candidates(part.token, text, pos, loc)) {
      const before = values.get(field);
      if (before !== undefined && before !== value) continue;
      values.set(field, value);
      const found = walk(i + 1, pos + length);
      if (before === undefined) values.delete(field);
      if (found) return found;
    }
    return undefined;
  };
  return walk(0, 0);
}
