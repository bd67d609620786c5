// An entry's `HH:MM`, and a frontmatter time without an offset, are clock readings in the vault's
// zone: recency is measured from the moment the person lived, not from that clock read as UTC.
import { afterAll, describe, expect, it } from 'vitest';
import type { Note, Section } from '../../src/core/types.js';
import { defaultConfig, openVault } from '../../src/index.js';
import { memoryTime as timeOf } from '../../src/recall/rank.js';
import { parseInstant } from '../../src/time/parse-instant.js';
import { timeSources } from '../../src/vault/section-facts.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const note = (frontmatter: Record<string, unknown>) => ({ frontmatter }) as unknown as Note;
const section = (date?: string, time?: string) => ({ date, time }) as unknown as Section;
/** A section's memory time from the facts recall ranks it by (its note's times when it has no day). */
const memoryTime = (n: Note, s: Section, zone: string) =>
  timeOf({ date: s.date, time: s.time, since: s.date ? undefined : timeSources(n) }, zone);

describe('memoryTime', () => {
  it("reads an entry's day and time in the vault's zone", () => {
    expect(memoryTime(note({}), section('2026-11-30', '09:00'), 'Asia/Shanghai')).toBe(
      Date.parse('2026-11-30T09:00:00+08:00'),
    );
    expect(memoryTime(note({}), section('2026-11-30', '09:00'), 'America/Los_Angeles')).toBe(
      Date.parse('2026-11-30T09:00:00-08:00'),
    );
    // An entry without a time is placed at noon of its day.
    expect(memoryTime(note({}), section('2026-11-30'), 'Asia/Shanghai')).toBe(
      Date.parse('2026-11-30T12:00:00+08:00'),
    );
  });

  it('reads a frontmatter time without an offset in the zone, and one with an offset as that instant', () => {
    const zone = 'Asia/Shanghai';
    expect(memoryTime(note({ updated: '2026-11-30 09:00' }), section(), zone)).toBe(
      Date.parse('2026-11-30T09:00:00+08:00'),
    );
    expect(memoryTime(note({ created: '2026-11-30' }), section(), zone)).toBe(
      Date.parse('2026-11-30T00:00:00+08:00'),
    );
    expect(memoryTime(note({ updated: '2026-11-30T09:00:00Z' }), section(), zone)).toBe(
      Date.parse('2026-11-30T09:00:00Z'),
    );
    expect(memoryTime(note({ updated: '2026-11-30T09:00:00-05:00' }), section(), zone)).toBe(
      Date.parse('2026-11-30T14:00:00Z'),
    );
    // `updated` wins over `created`; text that is no time falls through to the next key.
    expect(memoryTime(note({ updated: 'soon', created: '2026-11-01T00:00:00Z' }), section(), zone)).toBe(
      Date.parse('2026-11-01T00:00:00Z'),
    );
    expect(memoryTime(note({ updated: 'soon' }), section(), zone)).toBeUndefined();
  });

  it('reads every offset form parseInstant reads, as parseInstant does', () => {
    // Date.parse, which recall used for a time with an offset, reads neither `+08` nor `,5`.
    const zone = 'Asia/Shanghai';
    for (const text of [
      '2026-11-30T00:10:00+08',
      '2026-11-30T00:10+0800',
      '2026-11-30 00:10:00,5+08:00',
      '2026-11-29T16:10:00Z',
      '2026-11-29 11:10 -05:00',
      'Mon, 30 Nov 2026 00:10:00 +0800',
    ]) {
      const expected = parseInstant(text, zone)?.getTime();
      expect(expected).toBeDefined();
      expect([text, memoryTime(note({ updated: text }), section(), zone)]).toEqual([text, expected]);
    }
  });
});

describe("memoryTime's day-offset shortcut", () => {
  // Each day and minute read through the shortcut must be the instant parseInstant gives: on days
  // of a transition (spring forward, fall back, a zone that changes at midnight) it must not use
  // the day's offset, and a clock that does not exist reads as Temporal's 'compatible' does.
  const zones = [
    'UTC',
    'Asia/Shanghai',
    'America/Los_Angeles',
    'Europe/London',
    'Australia/Lord_Howe',
    'America/Santiago',
  ];
  const days = [
    '2026-03-08',
    '2026-03-29',
    '2026-04-05',
    '2026-09-06',
    '2026-10-04',
    '2026-10-25',
    '2026-11-01',
    '2026-11-30',
    '2024-02-29',
  ];
  const clocks = [
    '00:00',
    '00:30',
    '01:00',
    '01:30',
    '01:59',
    '02:00',
    '02:15',
    '02:30',
    '03:00',
    '12:00',
    '23:59',
  ];
  it('gives the instant parseInstant gives, on transition days too', () => {
    for (const zone of zones) {
      for (const day of days) {
        for (const clock of clocks) {
          const expected = parseInstant(`${day}T${clock}`, zone)?.getTime();
          expect([zone, day, clock, memoryTime(note({}), section(day, clock), zone)]).toEqual([
            zone,
            day,
            clock,
            expected,
          ]);
        }
      }
    }
  });

  it('leaves a day or time that does not exist to parseInstant', () => {
    expect(memoryTime(note({}), section('2026-02-30', '09:00'), 'Asia/Shanghai')).toBeUndefined();
    expect(memoryTime(note({}), section('2026-11-30', '24:00'), 'Asia/Shanghai')).toBe(
      parseInstant('2026-11-30T24:00', 'Asia/Shanghai')?.getTime(),
    );
    expect(memoryTime(note({}), section('2026-11-30', '9:05'), 'Asia/Shanghai')).toBe(
      Date.parse('2026-11-30T09:05:00+08:00'),
    );
  });
});

describe('recall recency', () => {
  it("counts an entry's age from its moment in the vault's zone", async () => {
    const root = await makeVault({
      'episodes/daily/2026-11-30.md': '# 2026-11-30\n\n- 09:00 **Rain:** Bought a green teapot ^e1\n',
    });
    const vault = await openVault({ path: root, cache: false });
    // Eight hours after the entry, in Shanghai (the vault's zone). Read as UTC, the entry would
    // have been "now" and its recency 1.
    const [hit] = vault.recall('teapot', { now: '2026-11-30T17:00:00+08:00' }).hits;
    const halfLife = defaultConfig().recall.halfLifeDays;
    expect(hit?.parts.recency).toBeCloseTo(0.5 ** (8 / 24 / halfLife), 4);
    expect(hit?.parts.recency).toBeLessThan(1);
    await vault.close();
  });

  it('ranks a note updated just after midnight, with a short offset, as the newest', async () => {
    // The vault's zone is Asia/Shanghai; `now` is 00:30 there. The first note was updated twenty
    // minutes ago: its time was lost to Date.parse (recency 0.5), so the ten-day-old note outranked it.
    const root = await makeVault({
      'insights/teapot-new.md': '---\nupdated: 2026-11-30T00:10:00+08\n---\n# Teapot\n\nThe green teapot.\n',
      'insights/teapot-old.md': '---\nupdated: 2026-11-20\n---\n# Teapot\n\nThe green teapot.\n',
    });
    const vault = await openVault({ path: root, cache: false });
    const { hits } = vault.recall('green teapot', { now: '2026-11-30T00:30:00+08:00' });
    expect(hits.map((hit) => hit.path)).toEqual(['insights/teapot-new.md', 'insights/teapot-old.md']);
    const halfLife = defaultConfig().recall.halfLifeDays;
    expect(hits[0]?.parts.recency).toBeCloseTo(0.5 ** (20 / 60 / 24 / halfLife), 4);
    await vault.close();
  });
});
