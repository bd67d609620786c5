import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompileResult, openVault, type Vault } from '../../src/index.js';
import { addDays } from '../../src/time/calendar-day.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

/** Tuesday 1 December 2026, evening in Shanghai (the vault's zone). */
const NOW = new Date('2026-12-01T21:00:00+08:00');
const FIRST = '2025-10-28';
const LAST = '2026-12-01';
/** Ten months before NOW: a day that only a time-aware question should bring back raw. */
const OLD_DAY = '2026-02-03';
const PLACES = ['[[Shanghai]]', '[[Hangzhou]]', '[[苏州]]', '[[Office]]'];
const PEOPLE = ['[[Kevin]]', '[[Sophie]]', '[[林雪]]', '[[许哲]]', '[[Mei]]'];

function dayNote(date: string, n: number): string {
  const entries = [
    `- 08:30 **Rain:** Morning ${n}: coffee and a walk near ${PLACES[n % PLACES.length]}. ^e1`,
    `- 13:00 (event) Lunch ${n} with ${PEOPLE[n % PEOPLE.length]} talking about project ${n % 17}. ^e2`,
    `- 21:00 **Rain:** Evening ${n}: read a chapter, slept early. ^e3`,
  ];
  if (date === OLD_DAY)
    entries.push(
      '- 18:40 **Rain:** Lost my blue umbrella (那把蓝色雨伞) at the 静安 library, 下雨走回家的. ^e4',
    );
  return `---\ndate: ${date}\n---\n# ${date}\n\n${entries.join('\n')}\n`;
}

function days(): string[] {
  const all: string[] = [];
  for (let d = FIRST; d <= LAST; d = addDays(d, 1)) all.push(d);
  return all;
}

/** `[[name]]` links in a rollup's `sources`, by file name. */
async function sourcesOf(root: string, path: string): Promise<string[]> {
  const text = await readFile(join(root, path), 'utf8');
  const block = /\nsources:\n((?: {2}- .*\n)+)/.exec(text)?.[1] ?? '';
  return [...block.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1] ?? '');
}

describe('cascade folding over 400 days', () => {
  let root: string;
  let vault: Vault;
  const paths = new Map<string, string>();

  beforeAll(async () => {
    const files: Record<string, string> = {
      'persona/identity.md': '---\npinned: true\n---\n# 小满\nA warm companion who listens first.\n',
      'profile/user.md': '---\ntitle: Rain\n---\n# Rain\nLives in [[Shanghai]].\n',
    };
    days().forEach((date, n) => {
      files[`episodes/daily/${date}.md`] = dayNote(date, n);
    });
    root = await makeVault(files);
    vault = await openVault({ path: root, cache: false });
    const result = await vault.rollup({ missing: true, offline: true, now: NOW });
    for (const w of result.written) paths.set(w.period, w.path);
    for (const date of days()) paths.set(date, `episodes/daily/${date}.md`);
  }, 120_000);

  it('writes every finished week, month, quarter and year, and none that has not ended', () => {
    const periods = [...paths.keys()].filter((p) => !/^\d{4}-\d{2}-\d{2}$/.test(p));
    expect(periods.filter((p) => p.includes('W'))).toHaveLength(57);
    expect(periods.filter((p) => /^\d{4}-\d{2}$/.test(p))).toHaveLength(14);
    expect(periods.filter((p) => p.includes('Q'))).toEqual(['2025-Q4', '2026-Q1', '2026-Q2', '2026-Q3']);
    expect(periods.filter((p) => /^\d{4}$/.test(p))).toEqual(['2025']);
    expect(periods).not.toContain('2026-W49');
    expect(periods).not.toContain('2026-12');
  });

  it('reaches every day through exactly one rollup chain; only the days after the newest rollup stay raw', async () => {
    const result = vault.compile({ message: 'hi', history: ['hello'], now: NOW });
    const shown = result.folded ?? [];
    expect(shown.map((f) => f.period)).toEqual([
      '2026-11',
      '2026-10',
      '2026-Q3',
      '2026-Q2',
      '2026-Q1',
      '2025',
    ]);
    const sources = new Map<string, string[]>();
    for (const [name, path] of paths)
      if (!path.startsWith('episodes/daily/')) sources.set(name, await sourcesOf(root, path));
    const chains = (from: string, to: string): number =>
      from === to ? 1 : (sources.get(from) ?? []).reduce((sum, next) => sum + chains(next, to), 0);
    for (const date of days().filter((d) => d <= '2026-11-30')) {
      const standing = shown.filter((f) => f.standsFor.some((s) => s.from <= date && date <= s.to));
      expect(standing, date).toHaveLength(1);
      const total = shown.reduce((sum, f) => sum + chains(f.period, date), 0);
      expect(total, date).toBe(1);
    }
    const recent = result.sections.find((s) => s.name === 'recent');
    const raw = recent?.items.filter((i) => i.path.startsWith('episodes/daily/')).map((i) => i.path);
    expect(new Set(raw)).toEqual(new Set(['episodes/daily/2026-12-01.md']));
  });

  it('keeps the recent section within its share of the budget', () => {
    for (const budget of [600, 2000, 8000]) {
      const result: CompileResult = vault.compile({ message: 'hi', history: ['hello'], budget, now: NOW });
      const before = result.sections.filter((s) => s.name !== 'recent');
      const relevant = before.find((s) => s.name === 'relevant');
      const recent = result.sections.find((s) => s.name === 'recent');
      // Its share (0.15 by default) plus what the section before it left unused, never more.
      const allowed = Math.floor(budget * 0.15) + ((relevant?.budget ?? 0) - (relevant?.used ?? 0));
      expect(recent?.used ?? 0).toBeLessThanOrEqual(allowed);
      expect(recent?.items.length ?? 0).toBeGreaterThan(0);
      expect(result.used).toBeLessThanOrEqual(budget);
    }
  });

  it('still finds a raw entry from ten months ago when asked about that day', async () => {
    for (const options of [
      { message: '2月3号那把雨伞后来呢？' },
      { message: 'what happened that day?', range: { from: OLD_DAY, to: OLD_DAY } },
    ]) {
      const result = vault.compile({ ...options, history: ['hello'], now: NOW });
      const relevant = result.sections.find((s) => s.name === 'relevant');
      expect(relevant?.items.map((i) => `${i.path}#${i.anchor}`)).toContain(
        `episodes/daily/${OLD_DAY}.md#^e4`,
      );
    }
  });
});
