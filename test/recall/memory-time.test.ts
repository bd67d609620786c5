// An entry's `HH:MM`, and a frontmatter time without an offset, are clock readings in the vault's
// zone: recency is measured from the moment the person lived, not from that clock read as UTC.
import { afterAll, describe, expect, it } from 'vitest';
import type { Note, Section } from '../../src/core/types.js';
import { defaultConfig, openVault } from '../../src/index.js';
import { memoryTime } from '../../src/recall/rank.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const note = (frontmatter: Record<string, unknown>) => ({ frontmatter }) as unknown as Note;
const section = (date?: string, time?: string) => ({ date, time }) as unknown as Section;

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
});
