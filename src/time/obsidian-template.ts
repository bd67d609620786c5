// The variables Obsidian fills in when it makes a daily note from a template (core Templates and
// Daily notes; help.obsidian.md "Templates": {{title}}, {{date}} (default YYYY-MM-DD), {{time}}
// (default HH:mm), and {{date:FORMAT}} / {{time:FORMAT}} with moment.js tokens). The rules are the
// daily-note ones, as obsidian-daily-notes-interface (written to mimic the core plugin, and used by
// Calendar and Periodic Notes) applies them in createDailyNote:
// - {{date}}: the note's day in the daily-note format; {{title}}: the note's title; {{time}}: the clock now, HH:mm
// - {{date:FORMAT}}, {{time:FORMAT}}: the note's day at the clock's time now, in FORMAT
// - {{date+1d}}, {{time-2h:FORMAT}}: the same, moved first (units y Q M w d h m s, as moment's add reads them)
// - {{yesterday}}, {{tomorrow}}: the day before and after, in the daily-note format
// Names are matched without case, with spaces allowed inside the braces. Unlike a chain of
// String.replace, one pass: a title holding `{{date}}` is written as it is, never expanded again.

import { daysInMonth, epochDay, fromEpochDay } from './moment-calendar.js';
import { type DateTimeParts, type DayParts, formatDateTime, type MomentLocale } from './moment-format.js';

/** A clock reading in the vault's zone: a Temporal.ZonedDateTime or PlainDateTime serves. */
export interface TemplateClock {
  hour: number;
  minute: number;
  second?: number;
  millisecond?: number;
  /** The zone's offset (ZonedDateTime has it), for the Z and X tokens */
  offsetNanoseconds?: number;
}

export interface TemplateContext {
  /** The note's day */
  day: DayParts;
  /** The time now, in the vault's zone */
  now: TemplateClock;
  /** The note's title: its file name without `.md` */
  title: string;
  /** The format {{date}}, {{yesterday}}, {{tomorrow}} and a bare {{date+1d}} use: the daily-note format (default YYYY-MM-DD) */
  format?: string;
  /** The format {{time}} uses (default HH:mm, the Templates plugin's) */
  timeFormat?: string;
  locale?: MomentLocale;
}

/**
 * What follows `{{`: the name and a move, as the regexes `{{\s*(date|time)\s*(([+-]\d+)([yqmwdhs]))?\s*(:.+?)?}}`
 * and `{{\s*title\s*}}` read them (a move of at most six digits here). Sticky: tried at one place.
 */
const HEAD = /\s*(date|time|title|yesterday|tomorrow)\s*(?:([+-]\d{1,6})([yqmwdhs]))?\s*/iy;
/** What `.` in a JavaScript regex does not match */
const LINE_BREAK = /[\n\r\u2028\u2029]/g;

/** moment's add(n, unit) for the one-letter units (normalizeUnits: `q` and `D` are no unit, so no move). */
function move(at: Required<DateTimeParts>, amount: number, unit: string): Required<DateTimeParts> {
  const lower = unit.toLowerCase();
  let months = 0;
  let days = 0;
  let ms = 0;
  if (lower === 'y') months = 12 * amount;
  else if (unit === 'Q') months = 3 * amount;
  else if (unit === 'M') months = amount;
  else if (lower === 'w') days = 7 * amount;
  else if (unit === 'd') days = amount;
  else if (lower === 'h') ms = amount * 3_600_000;
  else if (unit === 'm') ms = amount * 60_000;
  else if (lower === 's') ms = amount * 1000;
  let { year, month, day } = at;
  if (months !== 0) {
    const index = year * 12 + (month - 1) + months;
    year = Math.floor(index / 12);
    month = index - year * 12 + 1;
    day = Math.min(day, daysInMonth(year, month));
  }
  const clock = ((at.hour * 60 + at.minute) * 60 + at.second) * 1000 + at.millisecond + ms;
  const carry = Math.floor(clock / 86_400_000);
  const rest = clock - carry * 86_400_000;
  const moved = fromEpochDay(epochDay(year, month, day) + days + carry);
  return {
    ...moved,
    hour: Math.floor(rest / 3_600_000),
    minute: Math.floor(rest / 60_000) % 60,
    second: Math.floor(rest / 1000) % 60,
    millisecond: rest % 1000,
    offsetMinutes: at.offsetMinutes,
  };
}

/** `text` with Obsidian's daily-note template variables filled in. */
export function renderTemplate(text: string, context: TemplateContext): string {
  const format = context.format?.trim() || 'YYYY-MM-DD';
  const timeFormat = context.timeFormat?.trim() || 'HH:mm';
  const { day, now, locale } = context;
  const at: Required<DateTimeParts> = {
    ...day,
    hour: now.hour,
    minute: now.minute,
    second: now.second ?? 0,
    millisecond: now.millisecond ?? 0,
    offsetMinutes: Math.round((now.offsetNanoseconds ?? 0) / 60e9),
  };
  // The note's day carries the clock now, as the moment createDailyNote is given does: a date
  // format with a time in it (a Templates plugin format such as `YYYY-MM-DD HH:mm`) shows it.
  const shift = (days: number) => ({ ...at, ...fromEpochDay(epochDay(day.year, day.month, day.day) + days) });
  const fill = (
    name: string,
    amount: string | undefined,
    unit: string | undefined,
    own: string | undefined,
  ) => {
    const kind = name.toLowerCase();
    if (amount === undefined && own === undefined) {
      if (kind === 'date') return formatDateTime(at, format, locale);
      if (kind === 'time') return formatDateTime(at, timeFormat, locale);
      if (kind === 'title') return context.title;
      if (kind === 'yesterday') return formatDateTime(shift(-1), format, locale);
      if (kind === 'tomorrow') return formatDateTime(shift(1), format, locale);
    }
    if (kind !== 'date' && kind !== 'time') return undefined;
    const moved = amount === undefined ? at : move(at, Number(amount), unit!);
    // moment's format('') is its default format
    const written = own === undefined ? format : own.trim() || 'YYYY-MM-DDTHH:mm:ssZ';
    return formatDateTime(moved, written, locale);
  };
  // The first `}}` and the first line break at or after a place; both only move forward, as the
  // places do, so the whole scan is linear however many `{{date:` a text holds.
  let close = -1;
  let lineBreak = -1;
  const closeFrom = (at: number) => {
    if (close !== -1 && close < at) close = -1;
    if (close === -1) close = text.indexOf('}}', at);
    return close;
  };
  const breakFrom = (at: number) => {
    if (lineBreak !== -1 && lineBreak < at) lineBreak = -1;
    if (lineBreak === -1) {
      LINE_BREAK.lastIndex = at;
      lineBreak = LINE_BREAK.exec(text)?.index ?? text.length;
    }
    return lineBreak;
  };
  let out = '';
  let from = 0;
  for (let open = text.indexOf('{{'); open !== -1; open = text.indexOf('{{', open + 1)) {
    if (open < from) continue;
    HEAD.lastIndex = open + 2;
    const head = HEAD.exec(text);
    if (!head) continue;
    const [, name, amount, unit] = head;
    const p = HEAD.lastIndex;
    let own: string | undefined;
    let end: number;
    if (text.startsWith('}}', p)) end = p + 2;
    else if (text[p] === ':' && p + 1 < text.length) {
      // `(:.+?)}}`: at least one character, then the first `}}`, all on one line
      const last = closeFrom(p + 2);
      if (last === -1 || breakFrom(p + 1) < last) continue;
      own = text.slice(p + 1, last);
      end = last + 2;
    } else continue;
    const value = fill(name!, amount, unit, own);
    if (value === undefined) continue;
    out += text.slice(from, open) + value;
    from = end;
  }
  return out + text.slice(from);
}
