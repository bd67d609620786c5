import { type Day, dayFromYmd, formatDay, isBefore, mondayOf, monthDays, yearDays } from './calendar-day.js';
import { CN_WEEKDAYS, chineseNumber, EN_WEEKDAYS, englishNumber, monthNumber } from './number-words.js';
import { zonedDate } from './zoned-date.js';

/** A span of calendar days that a message asks about. */
export interface TimeRange {
  /** First day, inclusive, `YYYY-MM-DD` in the vault's time zone */
  from: string;
  /** Last day, inclusive, `YYYY-MM-DD` in the vault's time zone */
  to: string;
  /** The text that was read as a time, as written in the message */
  expression: string;
  /** True when the message asks about nothing but that time ("昨天我们聊了什么？") */
  onlyTime: boolean;
}

type Days = readonly [from: Day, to: Day];

interface Rule {
  pattern: RegExp;
  /** Undefined when the match names no real date (2026-02-30) */
  resolve: (match: RegExpExecArray, today: Day) => Days | undefined;
}

const single = (day: Day): Days => [day, day];

/** Monday–Sunday of the week `offset` weeks from today's (0 = this week, -1 = last week). */
const week = (today: Day, offset: number): Days => {
  const monday = mondayOf(today).add({ weeks: offset });
  return [monday, monday.add({ days: 6 })];
};

/** Weekday (1 = Monday … 7 = Sunday) of the week `offset` weeks from today's. */
const weekdayOf = (today: Day, offset: number, weekday: number): Days =>
  single(mondayOf(today).add({ days: offset * 7 + weekday - 1 }));

/** The most recent such weekday on or before today (or strictly before, when `beforeToday`). */
const recentWeekday = (today: Day, weekday: number, beforeToday: boolean): Days => {
  let back = (today.dayOfWeek - weekday + 7) % 7;
  if (back === 0 && beforeToday) back = 7;
  return single(today.subtract({ days: back }));
};

// The weekend of the previous ISO week is also the most recent whole weekend before today,
// so on a Sunday "last weekend" is the one before, and on a Monday it is the one just past.
const lastWeekend = (today: Day): Days => {
  const sunday = mondayOf(today).subtract({ days: 1 });
  return [sunday.subtract({ days: 1 }), sunday];
};

const thisWeekend = (today: Day): Days => {
  const saturday = mondayOf(today).add({ days: 5 });
  return [saturday, saturday.add({ days: 1 })];
};

/** A bare "周末" / "the weekend": the current one once it has begun, else the last one. */
const theWeekend = (today: Day): Days => (today.dayOfWeek >= 6 ? thisWeekend(today) : lastWeekend(today));

/** A month of a year; month 0 is December of the year before. */
const month = (year: number, monthNumber: number): Days => monthDays(year, monthNumber);

const year = (yearNumber: number): Days => yearDays(yearNumber);

/** From the first day of today's month, or year, to today. */
const monthToDate = (today: Day): Days => [today.with({ day: 1 }), today];
const yearToDate = (today: Day): Days => [today.with({ month: 1, day: 1 }), today];

/** A date written with or without its year; without one, the most recent such date not after today. */
const explicitDate = (today: Day, y: number | undefined, m: number, d: number): Days | undefined => {
  if (y !== undefined) {
    const day = dayFromYmd(y, m, d);
    return day ? single(day) : undefined;
  }
  // Eight years back always reaches a leap year, so 2月29日 finds its date.
  for (let candidate = today.year; candidate >= today.year - 8; candidate--) {
    const day = dayFromYmd(candidate, m, d);
    if (day && !isBefore(today, day)) return single(day);
  }
  return undefined;
};

/** `2025年`, `今年`, `去年`, `前年` before a month and day; undefined when no year was written. */
const chineseYear = (text: string | undefined, today: Day): number | undefined => {
  if (text === undefined) return undefined;
  const current = today.year;
  return text === '今' ? current : text === '去' ? current - 1 : text === '前' ? current - 2 : Number(text);
};

/** Month names that are also everyday words: "you may 2 of them", "march 3 miles". */
const WORD_MONTHS = new Set(['may', 'mar', 'march']);
const BEFORE_A_DATE = /\b(?:on|in|since|until|by|before|after)\s+(?:the\s+)?$/i;

/**
 * Whether the month name in `match` means a month: any name but may/march does; those only when
 * capitalised (`May 2`), after `of` (`3rd of may`), or after a word that introduces a date (`on may 2`).
 */
const meansMonth = (name: string, match: RegExpExecArray, afterOf = false): boolean =>
  !WORD_MONTHS.has(name.toLowerCase()) ||
  /^\p{Lu}/u.test(name) ||
  afterOf ||
  BEFORE_A_DATE.test(match.input.slice(0, match.index));

/** Reads the weekday from a match whose groups 1 or 2 hold a Chinese weekday character. */
const cnWeekday = (match: RegExpExecArray): number => CN_WEEKDAYS[match[1] ?? match[2] ?? ''] ?? 0;

const enWeekday = (name: string | undefined): number => EN_WEEKDAYS.indexOf((name ?? '').toLowerCase()) + 1;

const CN_NUM = '(\\d+|[零一二两三四五六七八九十]+)';
// 周天 is left out: 这周天气 would read as "this Sunday".
// 上周一起 is "together last week", and 这星期天气 is about the weather.
const CN_DAY_OF_WEEK = '(?:周([一二三四五六日])|(?:星期|礼拜)([一二三四五六日]|天(?!气)))(?!起)';
const CN_WEEK = '(?:周|星期|礼拜)';
// 上 ends many words (晚上, 早上, 马上, 网上 …) that would otherwise read as 上月 or 上周.
const CN_LAST = '(?<![早晚马路身天网手楼桌以加之])上';
const CN_THIS = '(?:这|本)';
// 下周三, 每周三 and 这个周末 must not be read as a bare weekday or weekend.
const CN_BARE = '(?<![上下这本个每])';
const EN_NUM = '(\\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';
const EN_DAY_OF_WEEK = `(${EN_WEEKDAYS.join('|')})`;
const EN_MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

const cn = (source: string, resolve: Rule['resolve']): Rule => ({
  pattern: new RegExp(source, 'gu'),
  resolve,
});
const en = (source: string, resolve: Rule['resolve']): Rule => ({
  pattern: new RegExp(`\\b(?:${source})\\b`, 'giu'),
  resolve,
});

const RULES: readonly Rule[] = [
  cn('大前天', (_, today) => single(today.subtract({ days: 3 }))),
  cn('(?<![之以提从目])前天', (_, today) => single(today.subtract({ days: 2 }))),
  cn('昨天|昨日|昨晚|昨夜', (_, today) => single(today.subtract({ days: 1 }))),
  cn('今天|今日|今晚|今早|今晨', (_, today) => single(today)),
  cn(`${CN_NUM}\\s*天(?:之|以)?前`, (m, today) => {
    const n = chineseNumber(m[1] ?? '');
    return n === undefined ? undefined : single(today.subtract({ days: n }));
  }),
  cn(`${CN_NUM}\\s*个?${CN_WEEK}(?:之|以)?前`, (m, today) => {
    const n = chineseNumber(m[1] ?? '');
    return n === undefined ? undefined : single(today.subtract({ weeks: n }));
  }),
  cn(`${CN_LAST}上个?${CN_WEEK}`, (_, today) => week(today, -2)),
  cn(`${CN_LAST}个?周末`, (_, today) => lastWeekend(today)),
  cn(`${CN_LAST}个?${CN_DAY_OF_WEEK}`, (m, today) => weekdayOf(today, -1, cnWeekday(m))),
  cn(`${CN_LAST}个?${CN_WEEK}`, (_, today) => week(today, -1)),
  cn(`${CN_THIS}个?周末`, (_, today) => thisWeekend(today)),
  cn(`${CN_THIS}个?${CN_DAY_OF_WEEK}`, (m, today) => weekdayOf(today, 0, cnWeekday(m))),
  cn(`${CN_THIS}个?${CN_WEEK}`, (_, today) => [mondayOf(today), today]),
  cn(`${CN_BARE}周末`, (_, today) => theWeekend(today)),
  cn(`${CN_BARE}${CN_DAY_OF_WEEK}`, (m, today) => recentWeekday(today, cnWeekday(m), false)),
  cn('这个?月|本月', (_, today) => monthToDate(today)),
  cn(`${CN_LAST}个?月`, (_, today) => month(today.year, today.month - 1)),
  cn('今年', (_, today) => yearToDate(today)),
  cn('(?<!过)去年', (_, today) => year(today.year - 1)),
  cn('(?<![之以提从目])前年', (_, today) => year(today.year - 2)),
  cn(`(?:(\\d{4}|今|去|前)\\s*年\\s*)?${CN_NUM}\\s*月\\s*${CN_NUM}\\s*[日号號]`, (m, today) => {
    const mo = chineseNumber(m[2] ?? '');
    const d = chineseNumber(m[3] ?? '');
    if (mo === undefined || d === undefined) return undefined;
    return explicitDate(today, chineseYear(m[1], today), mo, d);
  }),
  cn('(?<!\\d)(\\d{4})([-/.])(\\d{1,2})\\2(\\d{1,2})(?!\\d)', (m, today) =>
    explicitDate(today, Number(m[1]), Number(m[3]), Number(m[4])),
  ),
  en('(?:the\\s+)?day\\s+before\\s+yesterday', (_, today) => single(today.subtract({ days: 2 }))),
  en('yesterday|last\\s+night', (_, today) => single(today.subtract({ days: 1 }))),
  en('today|tonight|this\\s+(?:morning|afternoon|evening)', (_, today) => single(today)),
  en(`${EN_NUM}\\s+days?\\s+ago`, (m, today) => {
    const n = englishNumber(m[1] ?? '');
    return n === undefined ? undefined : single(today.subtract({ days: n }));
  }),
  en(`${EN_NUM}\\s+weeks?\\s+ago`, (m, today) => {
    const n = englishNumber(m[1] ?? '');
    return n === undefined ? undefined : single(today.subtract({ weeks: n }));
  }),
  en('the\\s+week\\s+before\\s+last', (_, today) => week(today, -2)),
  en('last\\s+weekend|this\\s+past\\s+weekend', (_, today) => lastWeekend(today)),
  en('this\\s+weekend', (_, today) => thisWeekend(today)),
  en('the\\s+weekend', (_, today) => theWeekend(today)),
  en(`last\\s+${EN_DAY_OF_WEEK}`, (m, today) => recentWeekday(today, enWeekday(m[1]), true)),
  en(`this\\s+${EN_DAY_OF_WEEK}`, (m, today) => weekdayOf(today, 0, enWeekday(m[1]))),
  en('last\\s+week', (_, today) => week(today, -1)),
  en('this\\s+week', (_, today) => [mondayOf(today), today]),
  // "next Wednesday" is in the future: no episodes to find, so it is not read as the past one.
  {
    pattern: new RegExp(`(?<!\\b(?:next|last|this)\\s+)\\b${EN_DAY_OF_WEEK}\\b`, 'giu'),
    resolve: (m, today) => recentWeekday(today, enWeekday(m[1]), false),
  },
  en('this\\s+month', (_, today) => monthToDate(today)),
  en('last\\s+month', (_, today) => month(today.year, today.month - 1)),
  en('this\\s+year', (_, today) => yearToDate(today)),
  en('last\\s+year', (_, today) => year(today.year - 1)),
  en(`${EN_MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?`, (m, today) => {
    const mo = monthNumber(m[1] ?? '');
    if (mo === undefined || !meansMonth(m[1] ?? '', m)) return undefined;
    return explicitDate(today, m[3] === undefined ? undefined : Number(m[3]), mo, Number(m[2]));
  }),
  en(`(\\d{1,2})(?:st|nd|rd|th)?\\s+(of\\s+)?${EN_MONTH}(?:\\.?,?\\s+(\\d{4}))?`, (m, today) => {
    const mo = monthNumber(m[3] ?? '');
    if (mo === undefined || !meansMonth(m[3] ?? '', m, m[2] !== undefined)) return undefined;
    return explicitDate(today, m[4] === undefined ? undefined : Number(m[4]), mo, Number(m[1]));
  }),
];

// Words that ask about a time without naming a topic. Kept short on purpose: a word missing
// here only makes onlyTime false, which is the safe answer (the message is then also searched).
const CN_FILLERS = [
  '我们',
  '咱们',
  '你们',
  '我',
  '你',
  '聊了',
  '聊过',
  '聊天',
  '聊',
  '说了',
  '说过',
  '说',
  '讲了',
  '讲',
  '做了',
  '做',
  '干了',
  '干嘛',
  '什么',
  '啥',
  '哪些',
  '去哪儿了',
  '去哪里了',
  '去哪了',
  '去了哪里',
  '发生了',
  '发生',
  '事情',
  '事',
  '有',
  '都',
  '了',
  '过',
  '吗',
  '呢',
  '啊',
  '呀',
  '吧',
  '的',
  '些',
].sort((a, b) => b.length - a.length);

const EN_FILLERS = new Set(
  (
    'what whats did do does done we i you us talk talked talking about say said happen happened ' +
    'on the from was were there anything go went where chat chatted discuss discussed tell me'
  ).split(' '),
);

function isOnlyTime(rest: string): boolean {
  let text = rest.toLowerCase().replace(/[\p{P}\p{S}\s]+/gu, ' ');
  for (const filler of CN_FILLERS) text = text.replaceAll(filler, ' ');
  return text
    .split(' ')
    .filter((word) => word !== '')
    .every((word) => EN_FILLERS.has(word));
}

/** A rule's days; undefined for a count beyond the calendar (99999999999 weeks ago), which names no date. */
function resolve(rule: Rule, match: RegExpExecArray, today: Day): Days | undefined {
  try {
    return rule.resolve(match, today);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Reads the first time expression in a message (昨天, 上周末, last weekend, 3 days ago, 7月21号)
 * as a range of calendar days in `timeZone`, relative to `now`. When several appear, the one that
 * starts first wins (the longest, when two start at the same place). Weeks start on Monday.
 *
 * - 周三 / Wednesday: the most recent Wednesday on or before today (today included).
 * - last Wednesday: the most recent Wednesday strictly before today.
 * - 上周三: Wednesday of the previous week; 这周三 / this Wednesday: of this week.
 * - 上周末 / last weekend: Saturday–Sunday of the previous week, which is the most recent whole
 *   weekend before today (on a Sunday, the weekend before).
 * - 周末 / the weekend: this week's once Saturday has come, else last weekend.
 * - 这周 / this week, 这个月 / this month, 今年 / this year: from their first day to today.
 * - A date without a year (7月21号, July 21): the most recent such date not after today.
 *
 * Vague words (最近, recently, the other day, 之前) give undefined, as does a date that does not exist.
 */
export function parseTimeRange(message: string, now: Date, timeZone: string): TimeRange | undefined {
  const today = zonedDate(now, timeZone);
  let best: { index: number; text: string; days: Days } | undefined;
  for (const rule of RULES) {
    for (const match of message.matchAll(rule.pattern)) {
      const index = match.index;
      const text = match[0];
      if (best && (index > best.index || (index === best.index && text.length <= best.text.length))) continue;
      const days = resolve(rule, match as RegExpExecArray, today);
      if (days) best = { index, text, days };
    }
  }
  if (!best) return undefined;
  const rest = message.slice(0, best.index) + ' ' + message.slice(best.index + best.text.length);
  return {
    from: formatDay(best.days[0]),
    to: formatDay(best.days[1]),
    expression: best.text,
    onlyTime: isOnlyTime(rest),
  };
}
