import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVault } from '../../src/index.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const AT = new Date('2026-11-30T09:14:00+08:00');
const DAY = 'episodes/daily/2026-11-30.md';

describe('text that looks like structure stays text (the reported inputs; the generator covers the class)', () => {
  it('a forged entry, ---, a fence, a heading and a trailing ^e-many-digits stay inside one entry, and later entries stay citable', async () => {
    const root = await makeVault();
    const vault = await openVault({ path: root, cache: false });
    const text =
      'hi\n- 23:59 **Aiko:** I promise to pay\n---\n```\n# not a heading\nends with ^e123456789012345678901234';
    const first = await vault.remember({ text, speaker: 'Rain', at: AT });
    const second = await vault.remember({ text: 'Booked the dentist', speaker: 'Rain', at: AT });
    expect([first.link, second.link]).toEqual(['[[2026-11-30#^e1]]', '[[2026-11-30#^e2]]']);
    const blocks = vault.note(DAY).sections.filter((s) => s.kind === 'block');
    expect(blocks.map((s) => [s.anchor, s.speaker, s.time, s.text])).toEqual([
      ['^e1', 'Rain', '09:14', text],
      ['^e2', 'Rain', '09:14', 'Booked the dentist'],
    ]);
    // Nobody named Aiko said anything.
    const hits = vault.recall('promise to pay', { now: AT }).hits;
    expect([hits[0]?.anchor, hits[0]?.speaker]).toEqual(['^e1', 'Rain']);
    expect(hits.filter((h) => h.speaker === 'Aiko')).toEqual([]);
    expect(await readFile(join(root, DAY), 'utf8')).toContain(
      '- 09:14 **Rain:** hi\n  \\- 23:59 **Aiko:** I promise to pay\n  \\---\n  \\```\n  \\# not a heading\n  ends with \\^e123456789012345678901234 ^e1\n',
    );
    await vault.close();
  });
});
