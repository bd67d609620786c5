// When a promise or plan is due, read forward from the day it was said: "on Friday" in an entry of
// Monday 2026-11-30 is 2026-12-04, whatever day reflect runs. (time/time-range.ts reads the other
// way, back from a question's moment: 周五 there is the last Friday.) Day arithmetic is
// time/calendar-day.ts's; the entry's day is already a day in the vault's time zone.

import { type Day, dayFromYmd, formatDay, mondayOf, parseIsoDay } from '../time/calendar-day.js';
import { CN_WEEKDAYS, chineseNumber, EN_WEEKDAYS, englishNumber, monthNumber } from '../time/number-words.js';

export interface DueDate {
  /** `YYYY-MM-DD` */
  due: string;
  /** The words that gave it, e.g. `下周三` or `on Friday` */
  words: string;
}

const count = (text: string): number => chineseNumber(text) ?? englishNumber(text) ?? 0;

/** The first `weekday` on or after `from`. */
const onOrAfter = (from: Day, weekday: number): Day => from.add({ days: (weekday - from.dayOfWeek + 7) % 7 });
/** `weekday` of the ISO week `weeks` weeks after the one holding `day`. */
const inWeek = (day: Day, weeks: number, weekday: number): Day =>
  mondayOf(day).add({ weeks, days: weekday - 1 });

/** A month and day without a year: this year's, or next year's once this year's has passed. */
function nextDate(day: Day, month: number, date: number): Day | undefined {
  const found = dayFromYmd(day.year, month, date);
  if (found && formatDay(found) >= formatDay(day)) return found;
  return dayFromYmd(day.year + 1, month, date);
}

type Rule = [RegExp, (m: RegExpExecArray, day: Day) => Day | undefined];

const CN_DOW = '(?:周|星期|礼拜)([一二三四五六日天])';
const EN_DOW = `(${EN_WEEKDAYS.join('|')})`;
const enDow = (name: string | undefined) => EN_WEEKDAYS.indexOf((name ?? '').toLowerCase()) + 1;

/** Most specific first: 下下周三 before 下周三 before 周三. */
const RULES: Rule[] = [
  [/(\d{1,2})月(\d{1,2})[日号]/, (m, d) => nextDate(d, Number(m[1]), Number(m[2]))],
  [/(?:大后天)/, (_, d) => d.add({ days: 3 })],
  [/(?:后天)/, (_, d) => d.add({ days: 2 })],
  [/(?:明天|明早|明晚|明儿)/, (_, d) => d.add({ days: 1 })],
  [/(?:今天|今晚|今早|今儿)/, (_, d) => d],
  [new RegExp(`下下(?:个)?${CN_DOW}`), (m, d) => inWeek(d, 2, CN_WEEKDAYS[m[1] ?? ''] ?? 1)],
  [new RegExp(`下(?:个)?${CN_DOW}`), (m, d) => inWeek(d, 1, CN_WEEKDAYS[m[1] ?? ''] ?? 1)],
  [/下(?:个)?周末/, (_, d) => inWeek(d, 1, 6)],
  [new RegExp(`(?:这|本)(?:个)?${CN_DOW}`), (m, d) => inWeek(d, 0, CN_WEEKDAYS[m[1] ?? ''] ?? 1)],
  [/(?:这|本)?(?:个)?周末/, (_, d) => onOrAfter(d, 6)],
  [new RegExp(`(?<![上下])${CN_DOW}`), (m, d) => onOrAfter(d, CN_WEEKDAYS[m[1] ?? ''] ?? 1)],
  [/下(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])/, (_, d) => inWeek(d, 1, 1)],
  [/(\d+|[一两二三四五六七八九十])天(?:之?后|以后)/, (m, d) => d.add({ days: count(m[1] ?? '') })],
  [/月底/, (_, d) => d.with({ day: d.daysInMonth })],
  [/\bday after tomorrow\b/i, (_, d) => d.add({ days: 2 })],
  [/\btomorrow\b/i, (_, d) => d.add({ days: 1 })],
  [/\b(?:today|tonight|this (?:morning|afternoon|evening))\b/i, (_, d) => d],
  [new RegExp(`\\bnext ${EN_DOW}\\b`, 'i'), (m, d) => inWeek(d, 1, enDow(m[1]))],
  [new RegExp(`\\bthis ${EN_DOW}\\b`, 'i'), (m, d) => onOrAfter(d, enDow(m[1]))],
  [new RegExp(`\\b(?:on )?${EN_DOW}\\b`, 'i'), (m, d) => onOrAfter(d.add({ days: 1 }), enDow(m[1]))],
  [/\bnext weekend\b/i, (_, d) => inWeek(d, 1, 6)],
  [/\b(?:this |the )?weekend\b/i, (_, d) => onOrAfter(d, 6)],
  [/\bnext week\b/i, (_, d) => inWeek(d, 1, 1)],
  [/\bin (\d+|an?|one|two|three|four|five) days?\b/i, (m, d) => d.add({ days: count(m[1] ?? '') })],
  [/\bin (\d+|an?|one|two|three|four|five) weeks?\b/i, (m, d) => d.add({ weeks: count(m[1] ?? '') })],
  [/\b(?:by |at )?the end of the month\b/i, (_, d) => d.with({ day: d.daysInMonth })],
  [
    /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?\b/i,
    (m, d) => nextDate(d, monthNumber(m[1] ?? '') ?? 0, Number(m[2])),
  ],
  [
    /\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i,
    (m, d) => nextDate(d, monthNumber(m[2] ?? '') ?? 0, Number(m[1])),
  ],
];

/**
 * The day a promise in `text`, said on `said` (`YYYY-MM-DD`), is due; undefined when the text
 * names no day, or a day before it was said (then it is a memory, not a plan). A bare weekday is
 * the next one: "on Friday" said on a Friday is a week later, and 周五 said on a Friday is that day.
 */
export function resolveDueDate(text: string, said: string): DueDate | undefined {
  const day = parseIsoDay(said);
  if (!day) return undefined;
  for (const [pattern, resolve] of RULES) {
    const match = pattern.exec(text);
    if (!match) continue;
    const due = resolve(match, day);
    if (!due) return undefined;
    const iso = formatDay(due);
    return iso >= said ? { due: iso, words: match[0].trim() } : undefined;
  }
  return undefined;
}
