import { describe, expect, it } from 'vitest';
import {
  dayOf,
  endOfDay,
  fromWallClock,
  isDayOver,
  isoWithOffset,
  startOfDay,
  timeOfDay,
} from '../../src/time/zoned-date.js';

const LA = 'America/Los_Angeles';
const SHANGHAI = 'Asia/Shanghai';

describe('dayOf and timeOfDay', () => {
  it('put an instant on the day and clock of the vault zone, whatever the process zone', () => {
    const at = new Date('2026-11-30T01:15:30Z');
    expect([dayOf(at, 'UTC'), timeOfDay(at, 'UTC')]).toEqual(['2026-11-30', '01:15']);
    expect([dayOf(at, SHANGHAI), timeOfDay(at, SHANGHAI)]).toEqual(['2026-11-30', '09:15']);
    expect([dayOf(at, LA), timeOfDay(at, LA)]).toEqual(['2026-11-29', '17:15']);
  });

  it('show midnight as 00:00, not 24:00', () => {
    expect(timeOfDay(new Date('2026-11-29T16:00:00Z'), SHANGHAI)).toBe('00:00');
  });
});

describe('isoWithOffset', () => {
  it("writes the vault time zone's clock time with its offset", () => {
    const at = new Date('2026-11-30T01:15:30Z');
    expect(isoWithOffset(at, 'Asia/Shanghai')).toBe('2026-11-30T09:15:30+08:00');
    expect(isoWithOffset(at, 'UTC')).toBe('2026-11-30T01:15:30+00:00');
    expect(isoWithOffset(at, 'America/New_York')).toBe('2026-11-29T20:15:30-05:00');
  });

  it('drops milliseconds without rounding up into the next second', () => {
    expect(isoWithOffset(new Date('2026-11-30T01:15:30.999Z'), 'UTC')).toBe('2026-11-30T01:15:30+00:00');
  });
});

describe('startOfDay, endOfDay and isDayOver', () => {
  it('bound a day in the vault zone', () => {
    expect(startOfDay('2026-11-29', LA).toISOString()).toBe('2026-11-29T08:00:00.000Z');
    expect(endOfDay('2026-11-29', LA).toISOString()).toBe('2026-11-30T08:00:00.000Z');
    expect(startOfDay('2026-11-29', SHANGHAI).toISOString()).toBe('2026-11-28T16:00:00.000Z');
    expect(endOfDay('2026-11-29', SHANGHAI).toISOString()).toBe('2026-11-29T16:00:00.000Z');
  });

  it('follow DST: a spring-forward day has 23 hours, a fall-back day 25', () => {
    const hours = (day: string) => (endOfDay(day, LA).getTime() - startOfDay(day, LA).getTime()) / 3_600_000;
    expect([hours('2026-03-08'), hours('2026-11-01'), hours('2026-11-02')]).toEqual([23, 25, 24]);
  });

  it('start a day at its first instant where midnight is skipped', () => {
    // Chile moves its clocks from 00:00 to 01:00 on the first Sunday of September.
    expect(isoWithOffset(startOfDay('2026-09-06', 'America/Santiago'), 'America/Santiago')).toBe(
      '2026-09-06T01:00:00-03:00',
    );
  });

  it('say a day is over from the first instant of the next day in the vault zone', () => {
    const evening = new Date('2026-11-30T01:00:00Z'); // 17:00 on the 29th in LA, 09:00 on the 30th in Shanghai
    expect(isDayOver('2026-11-29', evening, LA)).toBe(false);
    expect(isDayOver('2026-11-29', evening, SHANGHAI)).toBe(true);
    expect(isDayOver('2026-11-29', endOfDay('2026-11-29', LA), LA)).toBe(true);
    expect(isDayOver('2026-11-29', new Date(endOfDay('2026-11-29', LA).getTime() - 1), LA)).toBe(false);
  });

  it('refuse a string that is not a date', () => {
    expect(() => endOfDay('2026-02-30', LA)).toThrow('not a date: "2026-02-30" (expected YYYY-MM-DD)');
  });
});

describe('fromWallClock', () => {
  it('reads a clock reading in the given zone', () => {
    const clock = { year: 2026, month: 11, day: 29, hour: 23, minute: 50 };
    expect(fromWallClock(clock, SHANGHAI)?.toISOString()).toBe('2026-11-29T15:50:00.000Z');
    expect(fromWallClock(clock, LA)?.toISOString()).toBe('2026-11-30T07:50:00.000Z');
  });

  it('reads a time skipped by DST as the time after it, and a repeated one as its first occurrence', () => {
    expect(fromWallClock({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, LA)?.toISOString()).toBe(
      '2026-03-08T10:30:00.000Z',
    );
    expect(fromWallClock({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, LA)?.toISOString()).toBe(
      '2026-11-01T08:30:00.000Z',
    );
  });

  it('gives undefined for a clock reading that does not exist', () => {
    expect(fromWallClock({ year: 2026, month: 2, day: 30 }, LA)).toBeUndefined();
    expect(fromWallClock({ year: 2026, month: 1, day: 1, hour: 25 }, LA)).toBeUndefined();
  });
});
