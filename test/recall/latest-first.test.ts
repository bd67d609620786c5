import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { asksCurrentState, readPresent } from '../../src/recall/latest-first.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const day = (date: string, lines: string[]) => `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`;

/** Three versions of where Rain lives, months apart; the oldest says it most fully. */
const DIARY = {
  'episodes/daily/2026-03-04.md': day('2026-03-04', [
    '- 20:00 **Rain:** I live in Hangzhou, a small flat by the lake, I live alone ^e1',
    '- 20:05 **Rain:** 我住在杭州，住在西湖边上，一个人住 ^e2',
  ]),
  'episodes/daily/2026-06-17.md': day('2026-06-17', [
    '- 20:00 **Rain:** I live in Suzhou these days ^e1',
    '- 20:05 **Rain:** 搬家了，我住在苏州 ^e2',
  ]),
  'episodes/daily/2026-10-09.md': day('2026-10-09', [
    '- 20:00 **Rain:** I live in Shanghai now ^e1',
    '- 20:05 **Rain:** 我住在上海了 ^e2',
  ]),
};
const NOW = new Date('2026-12-01T10:00:00Z');

describe('current facts', () => {
  it.each([
    ['Where do I live?', '^e1'],
    ['Where do I live now?', '^e1'],
    ['我住在哪里？', '^e2'],
    ['我现在住在哪里？', '^e2'],
  ])('%s: the newest of several versions ranks first', async (question, anchor) => {
    const vault = await openVault({ path: await makeVault(DIARY), cache: false });
    const hits = vault.recall(question, { now: NOW }).hits.filter((h) => h.anchor === anchor);
    expect(hits.map((h) => h.date)).toEqual(['2026-10-09', '2026-06-17', '2026-03-04']);
    const compiled = vault.compile({ message: question, budget: 600, now: NOW });
    const at = (date: string) => compiled.markdown.indexOf(`[[${date}]]`);
    expect(at('2026-10-09')).toBeGreaterThan(0);
    expect(at('2026-10-09')).toBeLessThan(at('2026-03-04'));
  });

  it('reads "now" as asking for the newest, not as a word to match', async () => {
    const vault = await openVault({ path: await makeVault(DIARY), cache: false });
    const hits = vault.recall('where do I live now', { now: NOW }).hits;
    expect(hits[0]?.date).toBe('2026-10-09');
    expect(hits[0]?.reasons[0]).not.toMatch(/\bnow\b/);
  });
});

describe('words that ask about the present', () => {
  it('are read in English and Chinese, and 还 only where it means "still"', () => {
    expect(readPresent('Where do I live now?')).toEqual({ text: 'Where do I live  ?', present: true });
    expect(readPresent('我还在学吉他吗')).toEqual({ text: '我 在学吉他吗', present: true });
    expect(readPresent('我什么时候还书')).toEqual({ text: '我什么时候还书', present: false });
    expect(readPresent('I know the way')).toEqual({ text: 'I know the way', present: false });
  });
});

/** A month of chat around three versions of how Rain gets to work; the oldest names the commute. */
function commuteDiary(speakerOfNewest = 'Rain'): Record<string, string> {
  const chat = [
    'watered the ferns',
    'called my sister',
    'read a novel on the sofa',
    'baked bread',
    'fixed the bike bell',
  ];
  const files: Record<string, string> = {};
  for (let d = 1; d <= 28; d++) {
    const date = `2026-09-${String(d).padStart(2, '0')}`;
    const lines = [
      `- 09:00 **Rain:** Today I ${chat[d % chat.length]} and ${chat[(d + 2) % chat.length]} ^e1`,
    ];
    if (d === 2) lines.push('- 20:00 **Rain:** My commute: I take the bus to work, 40 minutes each way. ^e2');
    if (d === 12) lines.push('- 20:00 **Rain:** I ride my bike to work now, the bus was too slow. ^e2');
    if (d === 25)
      lines.push(`- 20:00 **${speakerOfNewest}:** I take the metro to work now, line 11, 25 minutes. ^e2`);
    files[`episodes/daily/${date}.md`] = day(date, lines);
  }
  return files;
}
const LATER = new Date('2026-10-20T10:00:00Z');

describe('a newer entry that restates an older one in other words', () => {
  it('ranks first for a question about now, though it shares fewer words with it', async () => {
    const vault = await openVault({ path: await makeVault(commuteDiary()), cache: false });
    for (const question of ['How do I commute to work?', 'How do I commute to work currently?']) {
      const hits = vault.recall(question, { now: LATER }).hits.filter((h) => h.anchor === '^e2');
      expect(hits[0]?.date).toBe('2026-09-25');
      const compiled = vault.compile({ message: question, budget: 600, now: LATER });
      const at = (date: string) => compiled.markdown.indexOf(`[[${date}]]`);
      expect(at('2026-09-25')).toBeGreaterThan(0);
      expect(at('2026-09-25')).toBeLessThan(at('2026-09-02'));
    }
  });

  it('is not asked for about the past, nor taken from another speaker', async () => {
    const vault = await openVault({ path: await makeVault(commuteDiary()), cache: false });
    const past = vault.recall('How did I commute to work?', { now: LATER }).hits;
    expect(past[0]?.date).toBe('2026-09-02');
    const other = await openVault({ path: await makeVault(commuteDiary('Mei')), cache: false });
    const hits = other.recall('How do I commute to work?', { now: LATER }).hits;
    expect(hits[0]?.date).toBe('2026-09-02');
  });
});

describe('asksCurrentState', () => {
  it.each([
    ['How do I get to work?', true],
    ['Where does Mei live these days?', true],
    ['What is her job?', true],
    ['我住在哪里？', true],
    ['Where did I live in March?', false],
    ['What was her job before?', false],
    ['我以前住在哪里？', false],
    ['她去年在哪工作了？', false],
  ])('%s → %s', (question, expected) => {
    expect(asksCurrentState(question)).toBe(expected);
  });
});
