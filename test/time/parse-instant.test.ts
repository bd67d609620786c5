import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/time/parse-instant.js';

const LA = 'America/Los_Angeles';
const SHANGHAI = 'Asia/Shanghai';
const iso = (text: string, zone: string) => parseInstant(text, zone)?.toISOString();

describe('parseInstant', () => {
  it('keeps the offset a timestamp has', () => {
    for (const zone of [LA, SHANGHAI]) {
      expect(iso('2026-11-28T23:50:00+08:00', zone)).toBe('2026-11-28T15:50:00.000Z');
      expect(iso('2026-11-28T15:50:00Z', zone)).toBe('2026-11-28T15:50:00.000Z');
      expect(iso('2026-11-28 23:50 +0800', zone)).toBe('2026-11-28T15:50:00.000Z');
      expect(iso('2026-11-28T10:50:00.5-05', zone)).toBe('2026-11-28T15:50:00.500Z');
      expect(iso('Sat Nov 28 2026 23:50:00 GMT+0800 (China Standard Time)', zone)).toBe(
        '2026-11-28T15:50:00.000Z',
      );
    }
  });

  it('reads a timestamp without an offset in the vault zone, not the process zone', () => {
    expect(iso('2026-11-28T23:50:00', SHANGHAI)).toBe('2026-11-28T15:50:00.000Z');
    expect(iso('2026-11-28T23:50:00', LA)).toBe('2026-11-29T07:50:00.000Z');
    expect(iso('2026-11-28 23:50', LA)).toBe('2026-11-29T07:50:00.000Z');
    expect(iso('2026/11/28 23:50:00', LA)).toBe('2026-11-29T07:50:00.000Z');
    expect(iso('Nov 28, 2026 11:50 PM', LA)).toBe('2026-11-29T07:50:00.000Z');
  });

  it('reads a date alone as the start of that day in the vault zone', () => {
    expect(iso('2026-11-28', LA)).toBe('2026-11-28T08:00:00.000Z');
    expect(iso('2026-11-28', SHANGHAI)).toBe('2026-11-27T16:00:00.000Z');
  });

  it('gives undefined for text that is no time, or a date that does not exist', () => {
    expect([iso('soon', LA), iso('2026-02-30T10:00', LA), iso('2026-11-28T24:30', LA)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
