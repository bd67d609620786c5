import { afterAll, describe, expect, it } from 'vitest';
import { matchingSentence } from '../../src/compile/list-items.js';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const NOW = new Date('2026-06-30T10:00:00Z');
const CONFIG = { config: { timezone: 'UTC', git: { autoCommit: false } } };

/** Twelve days; on each, Rain tells of one hobby inside a long entry, and Mei answers. */
const HOBBIES = [
  'pottery',
  'chess',
  'climbing',
  'baking',
  'kayaking',
  'knitting',
  'surfing',
  'archery',
  'origami',
  'fencing',
  'gardening',
  'juggling',
];
function diary(): Record<string, string> {
  const files: Record<string, string> = {};
  HOBBIES.forEach((hobby, i) => {
    const date = `2026-06-${String(i + 1).padStart(2, '0')}`;
    const lines = [
      `- 09:00 **Rain:** The morning started slowly with coffee on the balcony and a long look at the rain over the rooftops. My new hobby is ${hobby}, every weekend now. After that we walked to the market, bought far too many peaches and argued about which bakery sells the best bread in town. ^e1`,
      '- 09:01 **Mei:** That sounds like a lovely weekend, tell me more about it next time we meet for lunch. ^e2',
    ];
    files[`episodes/daily/${date}.md`] = `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`;
  });
  return files;
}

const quoted = (markdown: string) => markdown.split('\n').filter((line) => line.startsWith('> '));

describe('compile for a question that asks for several things', () => {
  it('packs one sentence per entry, so every day of the list fits', async () => {
    const vault = await openVault({ path: await makeVault(diary(), CONFIG), cache: false });
    const list = vault.compile({ message: 'What hobbies does Rain have?', budget: 700, now: NOW });
    const lines = quoted(list.markdown);
    for (const hobby of HOBBIES)
      expect(lines).toContain(`> … My new hobby is ${hobby}, every weekend now. …`);
    // Asked for one thing, the same entries come whole, and fewer of them fit.
    const one = vault.compile({ message: 'Which hobby does Rain have?', budget: 700, now: NOW });
    const whole = quoted(one.markdown).filter((line) => line.includes('My new hobby is'));
    expect(whole.length).toBeGreaterThan(0);
    expect(whole.every((line) => line.startsWith('> The morning started slowly'))).toBe(true);
    expect(whole.length).toBeLessThan(HOBBIES.length);
  });
});

describe('matchingSentence', () => {
  const weights = new Map([
    ['pottery', 3],
    ['class', 1],
  ]);

  it('keeps the sentence with most of the query weight, marking what was left out', () => {
    const text = 'We met at noon. I signed up for a pottery class yesterday. It was raining all day.';
    expect(matchingSentence(text, weights)).toBe('… I signed up for a pottery class yesterday. …');
  });

  it('takes the next sentence along when the match is very short', () => {
    expect(matchingSentence('Pottery! It calms me down after work. Anyway, how are you?', weights)).toBe(
      'Pottery! It calms me down after work. …',
    );
  });

  it('keeps the first sentence when none matches, and a one-sentence text whole', () => {
    expect(
      matchingSentence('That sounds like a lovely day out by the river. Tell me more next time.', weights),
    ).toBe('That sounds like a lovely day out by the river. …');
    expect(matchingSentence('A pottery class, every Tuesday', weights)).toBe(
      'A pottery class, every Tuesday',
    );
  });

  it('cuts Chinese text at its sentence marks', () => {
    const zh = new Map([['陶艺', 2]]);
    expect(
      matchingSentence('今天下雨了，路上很堵。我报名了陶艺课，每周二晚上在老城区上课。晚上吃了面。', zh),
    ).toBe('… 我报名了陶艺课，每周二晚上在老城区上课。 …');
  });
});
