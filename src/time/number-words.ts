// Numbers, weekday and month names as people write them in a message or a diary, in Chinese and English:
// the one home of these tables for time words (time-range.ts), due dates (reflect/due-date.ts)
// and dates written out for reading (an index's date words, a rollup's headings).

const CN_DIGITS: Record<string, number> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** `3`, `三`, `十二`, `二十一`; undefined for anything else (几 is vague on purpose). */
export function chineseNumber(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const ten = text.indexOf('十');
  if (ten === -1) return text.length === 1 ? CN_DIGITS[text] : undefined;
  if (ten !== text.lastIndexOf('十') || text.length > 3) return undefined;
  const tens = ten === 0 ? 1 : CN_DIGITS[text.slice(0, ten)];
  const ones = ten === text.length - 1 ? 0 : CN_DIGITS[text.slice(ten + 1)];
  return tens === undefined || ones === undefined ? undefined : tens * 10 + ones;
}

const EN_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

/** `3`, `three`, `a`; undefined for anything else. */
export const englishNumber = (text: string): number | undefined =>
  /^\d+$/.test(text) ? Number(text) : EN_NUMBERS[text.toLowerCase()];

const EN_MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** `Nov`, `november`, `Sept` → 11, 11, 9; undefined for anything else. */
export const monthNumber = (name: string): number | undefined => {
  const lower = name.toLowerCase();
  return EN_MONTHS[lower.startsWith('sept') ? 'sept' : lower.slice(0, 3)];
};

/** English month names, January first. */
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** 周一 … 周日 (and 周天): ISO weekday numbers, Monday 1. */
export const CN_WEEKDAYS: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7 };

/** English weekday names, Monday first (index + 1 is the ISO weekday). */
export const EN_WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
