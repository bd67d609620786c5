import { afterAll, describe, expect, it } from 'vitest';
import { IRREGULAR_FORMS } from '../../src/indexing/text/irregular-forms.js';
import { processTerm } from '../../src/indexing/text/tokenize.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const pairs = [...IRREGULAR_FORMS];

describe('irregular forms in the stemmer', () => {
  it('has a list worth walking', () => {
    expect(pairs.length).toBeGreaterThan(200);
  });

  it.each(pairs)('indexes %s as %s is indexed', (form, base) => {
    const stem = processTerm(base);
    // A stop word would be dropped whatever its form: such a pair would do nothing.
    expect(stem).not.toBeNull();
    expect(processTerm(form)).toBe(stem);
  });

  it('keeps the words of different bases apart', () => {
    const bases = [...new Set(IRREGULAR_FORMS.values())];
    const stems = new Set(bases.map((base) => processTerm(base)));
    expect(stems.size).toBe(bases.length);
  });

  it('finds an entry by any form of its word, index and query analysed alike', async () => {
    // Every pair twice in one day: an entry with the irregular form and one with the base word,
    // each beside a word of its own so the two can be told apart.
    const lines: string[] = [];
    const ids = new Map<string, { form: string; base: string }>();
    pairs.forEach(([form, base], i) => {
      lines.push(`- 09:00 Yesterday they ${form} it, note ${i}f ^f${i}`);
      lines.push(`- 09:00 Tomorrow they ${base} it, note ${i}b ^b${i}`);
      ids.set(String(i), { form, base });
    });
    const path = 'episodes/daily/2026-05-04.md';
    const root = await makeVault({
      [path]: `---\ndate: 2026-05-04\n---\n# 2026-05-04\n\n${lines.join('\n')}\n`,
    });
    const index = await indexOf(root);
    const missed: string[] = [];
    for (const [i, { form, base }] of ids) {
      const byBase = index.text.search(base).map((hit) => hit.id);
      const byForm = index.text.search(form).map((hit) => hit.id);
      if (!byBase.includes(`${path}#^f${i}`)) missed.push(`${base} → ${form}`);
      if (!byForm.includes(`${path}#^b${i}`)) missed.push(`${form} → ${base}`);
    }
    expect(missed).toEqual([]);
  });
});
