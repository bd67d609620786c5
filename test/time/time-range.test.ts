import { describe, expect, it } from 'vitest';
import { parseTimeRange } from '../../src/time/time-range.js';

const SHANGHAI = 'Asia/Shanghai';
/** A Monday. */
const MONDAY = new Date('2026-11-30T10:00:00+08:00');
/** A Sunday. */
const SUNDAY = new Date('2026-11-29T10:00:00+08:00');

function range(message: string, now: Date = MONDAY, timeZone = SHANGHAI): [string, string] | undefined {
  const found = parseTimeRange(message, now, timeZone);
  return found && [found.from, found.to];
}

describe('parseTimeRange: days', () => {
  it.each([
    ['今天', '2026-11-30'],
    ['今日', '2026-11-30'],
    ['昨天', '2026-11-29'],
    ['昨日', '2026-11-29'],
    ['前天', '2026-11-28'],
    ['大前天', '2026-11-27'],
    ['today', '2026-11-30'],
    ['yesterday', '2026-11-29'],
    ['the day before yesterday', '2026-11-28'],
  ])('%s is the single day %s', (message, day) => {
    expect(range(message)).toEqual([day, day]);
  });

  it.each([
    ['3天前', '2026-11-27'],
    ['三天前', '2026-11-27'],
    ['两天前', '2026-11-28'],
    ['十天前', '2026-11-20'],
    ['十二天以前', '2026-11-18'],
    ['3 days ago', '2026-11-27'],
    ['two days ago', '2026-11-28'],
    ['a week ago', '2026-11-23'],
    ['2 weeks ago', '2026-11-16'],
    ['一周前', '2026-11-23'],
    ['一个星期前', '2026-11-23'],
    ['两个礼拜前', '2026-11-16'],
  ])('%s is the single day %s', (message, day) => {
    expect(range(message)).toEqual([day, day]);
  });
});

describe('parseTimeRange: weeks, on a Monday', () => {
  it.each([
    ['这周', ['2026-11-30', '2026-11-30']],
    ['本周', ['2026-11-30', '2026-11-30']],
    ['这个星期', ['2026-11-30', '2026-11-30']],
    ['这礼拜', ['2026-11-30', '2026-11-30']],
    ['this week', ['2026-11-30', '2026-11-30']],
    ['上周', ['2026-11-23', '2026-11-29']],
    ['上个星期', ['2026-11-23', '2026-11-29']],
    ['上礼拜', ['2026-11-23', '2026-11-29']],
    ['last week', ['2026-11-23', '2026-11-29']],
    ['上上周', ['2026-11-16', '2026-11-22']],
    ['上周三', ['2026-11-25', '2026-11-25']],
    ['上星期三', ['2026-11-25', '2026-11-25']],
    ['上礼拜三', ['2026-11-25', '2026-11-25']],
    ['上礼拜天', ['2026-11-29', '2026-11-29']],
    ['周三', ['2026-11-25', '2026-11-25']],
    ['星期三', ['2026-11-25', '2026-11-25']],
    ['周一', ['2026-11-30', '2026-11-30']],
    ['last Wednesday', ['2026-11-25', '2026-11-25']],
    ['last Monday', ['2026-11-23', '2026-11-23']],
    ['on Monday', ['2026-11-30', '2026-11-30']],
    ['这周三', ['2026-12-02', '2026-12-02']],
    ['上周末', ['2026-11-28', '2026-11-29']],
    ['上个周末', ['2026-11-28', '2026-11-29']],
    ['last weekend', ['2026-11-28', '2026-11-29']],
    ['这周末', ['2026-12-05', '2026-12-06']],
    ['this weekend', ['2026-12-05', '2026-12-06']],
    ['周末', ['2026-11-28', '2026-11-29']],
    ['the weekend', ['2026-11-28', '2026-11-29']],
  ])('%s is %j', (message, days) => {
    expect(range(message)).toEqual(days);
  });
});

describe('parseTimeRange: weeks, on a Sunday', () => {
  it('上周 and last week are the Monday–Sunday before this week', () => {
    expect(range('上周', SUNDAY)).toEqual(['2026-11-16', '2026-11-22']);
    expect(range('last week', SUNDAY)).toEqual(['2026-11-16', '2026-11-22']);
  });

  it('上周末 and last weekend are the weekend before the one that ends today', () => {
    expect(range('上周末', SUNDAY)).toEqual(['2026-11-21', '2026-11-22']);
    expect(range('last weekend', SUNDAY)).toEqual(['2026-11-21', '2026-11-22']);
  });

  it('这周末, this weekend and a bare 周末 are the weekend that ends today', () => {
    expect(range('这周末', SUNDAY)).toEqual(['2026-11-28', '2026-11-29']);
    expect(range('this weekend', SUNDAY)).toEqual(['2026-11-28', '2026-11-29']);
    expect(range('周末', SUNDAY)).toEqual(['2026-11-28', '2026-11-29']);
  });

  it('这周 runs from Monday to today', () => {
    expect(range('这周', SUNDAY)).toEqual(['2026-11-23', '2026-11-29']);
  });

  it('周日 includes today, but last Sunday is strictly before today', () => {
    expect(range('周日', SUNDAY)).toEqual(['2026-11-29', '2026-11-29']);
    expect(range('last Sunday', SUNDAY)).toEqual(['2026-11-22', '2026-11-22']);
  });
});

describe('parseTimeRange: months and years', () => {
  it.each([
    ['这个月', ['2026-11-01', '2026-11-30']],
    ['本月', ['2026-11-01', '2026-11-30']],
    ['this month', ['2026-11-01', '2026-11-30']],
    ['上个月', ['2026-10-01', '2026-10-31']],
    ['上月', ['2026-10-01', '2026-10-31']],
    ['last month', ['2026-10-01', '2026-10-31']],
    ['今年', ['2026-01-01', '2026-11-30']],
    ['this year', ['2026-01-01', '2026-11-30']],
    ['去年', ['2025-01-01', '2025-12-31']],
    ['last year', ['2025-01-01', '2025-12-31']],
  ])('%s is %j', (message, days) => {
    expect(range(message)).toEqual(days);
  });

  it('crosses the year boundary on New Year’s Day', () => {
    const newYear = new Date('2026-01-01T10:00:00+08:00');
    expect(range('昨天', newYear)).toEqual(['2025-12-31', '2025-12-31']);
    expect(range('上个月', newYear)).toEqual(['2025-12-01', '2025-12-31']);
    expect(range('上周', newYear)).toEqual(['2025-12-22', '2025-12-28']);
    expect(range('这周', newYear)).toEqual(['2025-12-29', '2026-01-01']);
    expect(range('去年', newYear)).toEqual(['2025-01-01', '2025-12-31']);
  });

  it('last month ends on the last day of February', () => {
    expect(range('上个月', new Date('2026-03-01T10:00:00+08:00'))).toEqual(['2026-02-01', '2026-02-28']);
    expect(range('last month', new Date('2028-03-15T10:00:00+08:00'))).toEqual(['2028-02-01', '2028-02-29']);
  });
});

describe('parseTimeRange: explicit dates', () => {
  it.each([
    ['2026-07-21', '2026-07-21'],
    ['2026/7/21', '2026-07-21'],
    ['7月21号', '2026-07-21'],
    ['7月21日', '2026-07-21'],
    ['七月二十一号', '2026-07-21'],
    ['2025年7月21日', '2025-07-21'],
    ['去年7月21号', '2025-07-21'],
    ['July 21', '2026-07-21'],
    ['21 July', '2026-07-21'],
    ['Jul 21st', '2026-07-21'],
    ['July 21, 2025', '2025-07-21'],
    ['the 3rd of March', '2026-03-03'],
  ])('%s is %s', (message, day) => {
    expect(range(message)).toEqual([day, day]);
  });

  it.each([
    ['May 2', '2026-05-02'],
    ['what did we say on May 2?', '2026-05-02'],
    ['March 3rd', '2026-03-03'],
    ['MAY 2', '2026-05-02'],
    ['on may 2', '2026-05-02'],
    ['in march 3', '2026-03-03'],
    ['since mar 3', '2026-03-03'],
    ['before the may 2 meeting', '2026-05-02'],
    ['on 2 may', '2026-05-02'],
    ['the 3rd of march', '2026-03-03'],
    ['jan 5', '2026-01-05'],
  ])('%s is %s (capitalised, or after a word that introduces a date)', (message, day) => {
    expect(range(message)).toEqual([day, day]);
  });

  it('a date without a year that is still to come this year is last year’s', () => {
    expect(range('12月5号')).toEqual(['2025-12-05', '2025-12-05']);
    expect(range('December 5')).toEqual(['2025-12-05', '2025-12-05']);
  });

  it('today’s month and day without a year is today', () => {
    expect(range('11月30日')).toEqual(['2026-11-30', '2026-11-30']);
  });

  it('2月29日 without a year is the most recent leap day', () => {
    expect(range('2月29日')).toEqual(['2024-02-29', '2024-02-29']);
  });

  it('a date that does not exist is no range', () => {
    expect(range('2026-02-30')).toBeUndefined();
    expect(range('13月5号')).toBeUndefined();
  });
});

describe('parseTimeRange: time zones', () => {
  const nearMidnight = new Date('2026-11-29T17:30:00Z');

  it('uses the calendar date in the vault’s time zone, not in UTC', () => {
    expect(range('今天', nearMidnight, 'Asia/Shanghai')).toEqual(['2026-11-30', '2026-11-30']);
    expect(range('昨天', nearMidnight, 'Asia/Shanghai')).toEqual(['2026-11-29', '2026-11-29']);
    expect(range('昨天', nearMidnight, 'UTC')).toEqual(['2026-11-28', '2026-11-28']);
  });

  it('works in America/New_York, where the week is a day behind Shanghai', () => {
    expect(range('today', nearMidnight, 'America/New_York')).toEqual(['2026-11-29', '2026-11-29']);
    expect(range('last weekend', nearMidnight, 'America/New_York')).toEqual(['2026-11-21', '2026-11-22']);
    expect(range('last weekend', nearMidnight, 'Asia/Shanghai')).toEqual(['2026-11-28', '2026-11-29']);
  });

  it('counts whole days across a daylight-saving change', () => {
    const afterSpringForward = new Date('2026-03-09T12:00:00-04:00');
    expect(range('2 days ago', afterSpringForward, 'America/New_York')).toEqual(['2026-03-07', '2026-03-07']);
  });
});

describe('parseTimeRange: what is not a time', () => {
  it.each([
    '最近',
    '近来',
    'recently',
    'the other day',
    'lately',
    '之前',
    '几天前',
    'a few days ago',
    '你好',
  ])('%s gives no range', (message) => {
    expect(parseTimeRange(message, MONDAY, SHANGHAI)).toBeUndefined();
  });

  it.each(['之前天气很好', '晚上月亮很美', '下周三见', '每周三开会', 'see you next Wednesday'])(
    '%s gives no range (a word that only contains a time word)',
    (message) => {
      expect(parseTimeRange(message, MONDAY, SHANGHAI)).toBeUndefined();
    },
  );

  it('reads English time words only as whole words', () => {
    expect(parseTimeRange('the todayshow and lastnights', MONDAY, SHANGHAI)).toBeUndefined();
    expect(parseTimeRange('tonightly', MONDAY, SHANGHAI)).toBeUndefined();
  });

  it.each(['you may 2 of them', 'march 3 miles to the lake', 'we may 12 times', 'I mar 3 pages'])(
    '%s gives no range (may and march are everyday words in lower case)',
    (message) => {
      expect(parseTimeRange(message, MONDAY, SHANGHAI)).toBeUndefined();
    },
  );

  it('gives no range for a count beyond the calendar, rather than throwing', () => {
    expect(parseTimeRange('99999999999999999999 weeks ago', MONDAY, SHANGHAI)).toBeUndefined();
    expect(range('3 weeks ago or 99999999999999999999 weeks ago')).toEqual(['2026-11-09', '2026-11-09']);
  });

  it('上周一起 is "together last week", not last Monday', () => {
    expect(range('上周一起吃饭')).toEqual(['2026-11-23', '2026-11-29']);
  });
});

describe('parseTimeRange: expression and onlyTime', () => {
  it('takes the first expression when several appear', () => {
    expect(parseTimeRange('昨天和上周', MONDAY, SHANGHAI)?.expression).toBe('昨天');
    expect(parseTimeRange('last week, and yesterday too', MONDAY, SHANGHAI)?.expression).toBe('last week');
  });

  it('reports the matched text as written', () => {
    expect(parseTimeRange('What did we do Last Weekend?', MONDAY, SHANGHAI)).toEqual({
      from: '2026-11-28',
      to: '2026-11-29',
      expression: 'Last Weekend',
      onlyTime: true,
    });
  });

  it.each([
    '昨天我们聊了什么？',
    'what did we talk about yesterday?',
    '昨天',
    'Yesterday.',
    '上周发生了什么事',
  ])('%s asks only about a time', (message) => {
    expect(parseTimeRange(message, MONDAY, SHANGHAI)?.onlyTime).toBe(true);
  });

  it.each(['上周末和美美去哪里爬山了', 'what did we say about Tokyo yesterday?', '昨天的会议'])(
    '%s also asks about a topic',
    (message) => {
      expect(parseTimeRange(message, MONDAY, SHANGHAI)?.onlyTime).toBe(false);
    },
  );
});
