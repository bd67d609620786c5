// Reading a moment.js format string (Obsidian's daily-note names are one) the way moment 2.x does:
// long-date tokens (L, LL, LT …) expanded from the locale first, then moment's own tokenizer regex,
// which takes the longest token at each place; `[text]` is literal, `\X` is the literal X, and any
// character that is no token is itself. The regexes are moment's (src/lib/format/format.js), so a
// format splits here exactly as in Obsidian: `Daily` is D, a (am/pm), i, l (a long date), y (era year).
// Locale data is moment's `en` and `zh-cn` (src/locale/zh-cn.js).

export type MomentLocale = 'en' | 'zh-cn';

export interface LocaleData {
  months: readonly string[];
  monthsShort: readonly string[];
  weekdays: readonly string[];
  weekdaysShort: readonly string[];
  weekdaysMin: readonly string[];
  /** First day of the week (0 = Sunday) and the January day always in week 1 (moment's `doy`) */
  week: { dow: number; doy: number };
  longDateFormat: Readonly<Record<string, string>>;
  /** moment's `ordinal(number, token)`: `1st`, `1日` */
  ordinal(n: number, period: string): string;
  meridiem(hour: number, minute: number, lower: boolean): string;
}

const EN: LocaleData = {
  months: 'January_February_March_April_May_June_July_August_September_October_November_December'.split('_'),
  monthsShort: 'Jan_Feb_Mar_Apr_May_Jun_Jul_Aug_Sep_Oct_Nov_Dec'.split('_'),
  weekdays: 'Sunday_Monday_Tuesday_Wednesday_Thursday_Friday_Saturday'.split('_'),
  weekdaysShort: 'Sun_Mon_Tue_Wed_Thu_Fri_Sat'.split('_'),
  weekdaysMin: 'Su_Mo_Tu_We_Th_Fr_Sa'.split('_'),
  week: { dow: 0, doy: 6 },
  longDateFormat: {
    LTS: 'h:mm:ss A',
    LT: 'h:mm A',
    L: 'MM/DD/YYYY',
    LL: 'MMMM D, YYYY',
    LLL: 'MMMM D, YYYY h:mm A',
    LLLL: 'dddd, MMMM D, YYYY h:mm A',
    l: 'M/D/YYYY',
    ll: 'MMM D, YYYY',
    lll: 'MMM D, YYYY h:mm A',
    llll: 'ddd, MMM D, YYYY h:mm A',
  },
  ordinal(n) {
    const last = n % 10;
    const suffix =
      Math.trunc((n % 100) / 10) === 1
        ? 'th'
        : last === 1
          ? 'st'
          : last === 2
            ? 'nd'
            : last === 3
              ? 'rd'
              : 'th';
    return `${n}${suffix}`;
  },
  meridiem: (hour, _minute, lower) => (hour > 11 ? (lower ? 'pm' : 'PM') : lower ? 'am' : 'AM'),
};

const ZH_CN: LocaleData = {
  months: '一月_二月_三月_四月_五月_六月_七月_八月_九月_十月_十一月_十二月'.split('_'),
  monthsShort: '1月_2月_3月_4月_5月_6月_7月_8月_9月_10月_11月_12月'.split('_'),
  weekdays: '星期日_星期一_星期二_星期三_星期四_星期五_星期六'.split('_'),
  weekdaysShort: '周日_周一_周二_周三_周四_周五_周六'.split('_'),
  weekdaysMin: '日_一_二_三_四_五_六'.split('_'),
  week: { dow: 1, doy: 4 },
  longDateFormat: {
    LT: 'HH:mm',
    LTS: 'HH:mm:ss',
    L: 'YYYY/MM/DD',
    LL: 'YYYY年M月D日',
    LLL: 'YYYY年M月D日Ah点mm分',
    LLLL: 'YYYY年M月D日ddddAh点mm分',
    l: 'YYYY/M/D',
    ll: 'YYYY年M月D日',
    lll: 'YYYY年M月D日 HH:mm',
    llll: 'YYYY年M月D日dddd HH:mm',
  },
  ordinal(n, period) {
    if (period === 'd' || period === 'D' || period === 'DDD') return `${n}日`;
    if (period === 'M') return `${n}月`;
    if (period === 'w' || period === 'W') return `${n}周`;
    return String(n);
  },
  meridiem(hour, minute) {
    const hm = hour * 100 + minute;
    if (hm < 600) return '凌晨';
    if (hm < 900) return '早上';
    if (hm < 1130) return '上午';
    if (hm < 1230) return '中午';
    if (hm < 1800) return '下午';
    return '晚上';
  },
};

export function localeData(locale: MomentLocale = 'en'): LocaleData {
  return locale === 'zh-cn' ? ZH_CN : EN;
}

/** A piece of a format: a token moment formats (`YYYY`), or literal text. */
export type FormatPart = { token: string } | { literal: string };

// moment's localFormattingTokens and formattingTokens, unchanged.
const LOCAL_FORMAT_TOKENS = /(\[[^[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})/g;
const FORMAT_TOKENS =
  /(\[[^[]*\])|(\\)?([Hh]mm(ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?|Qo?|N{1,5}|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(ggg?)?|GG(GGG?)?|e|E|a|A|hh?|HH?|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?|.)/g;

/** Every token moment has a format function for (a regex match that is none of these is literal). */
export const DAY_TOKENS = new Set(
  'M MM MMM MMMM Mo D DD Do DDD DDDD DDDo d dd ddd dddd do e E w ww wo W WW Wo Q Qo Y YY YYYY YYYYY YYYYYY gg gggg ggggg GG GGGG GGGGG'.split(
    ' ',
  ),
);
export const TIME_TOKENS = new Set(
  'H HH h hh k kk m mm s ss Hmm Hmmss hmm hmmss a A X x Z ZZ z zz S SS SSS SSSS SSSSS SSSSSS SSSSSSS SSSSSSSS SSSSSSSSS'.split(
    ' ',
  ),
);
/** Era tokens (moment 2.29+): known to moment, not supported here. */
export const ERA_TOKENS = new Set('N NN NNN NNNN NNNNN y yo yy yyy yyyy'.split(' '));

/** Formats are short; a longer one is refused before any regex runs over it. */
export const MAX_FORMAT_LENGTH = 256;

/** moment's expandFormat: long-date tokens replaced from the locale, up to five rounds. */
function expandLongDates(format: string, locale: LocaleData): string {
  let out = format;
  for (let round = 0; round < 5; round++) {
    const next = out.replace(LOCAL_FORMAT_TOKENS, (input) => locale.longDateFormat[input] ?? input);
    if (next === out) break;
    out = next;
  }
  return out;
}

/** Formats tokenized lately: a vault scan reads thousands of names in one or two formats. */
const cache = new Map<string, readonly FormatPart[]>();
const CACHE_SIZE = 64;

/** The parts of `format` in order; adjacent literal text is merged. Shared: do not change them. */
export function tokenize(format: string, locale: MomentLocale = 'en'): readonly FormatPart[] {
  const key = `${locale}\u0000${format}`;
  let parts = cache.get(key);
  if (parts === undefined) {
    if (cache.size >= CACHE_SIZE) cache.clear();
    parts = Object.freeze(split(format, locale));
    cache.set(key, parts);
  }
  return parts;
}

function split(format: string, locale: MomentLocale): FormatPart[] {
  const parts: FormatPart[] = [];
  const push = (literal: string) => {
    if (literal === '') return;
    const last = parts[parts.length - 1];
    if (last && 'literal' in last) last.literal += literal;
    else parts.push({ literal });
  };
  const expanded = expandLongDates(format, localeData(locale));
  for (const match of expanded.matchAll(FORMAT_TOKENS)) {
    const text = match[0];
    if (DAY_TOKENS.has(text) || TIME_TOKENS.has(text) || ERA_TOKENS.has(text)) parts.push({ token: text });
    // moment's removeFormattingTokens: `[text]` loses its brackets, anything else its backslashes.
    else if (/^\[[\s\S]/.test(text)) push(text.replace(/^\[|\]$/g, ''));
    else push(text.replace(/\\/g, ''));
  }
  return parts;
}
