import { afterAll, describe, expect, it } from 'vitest';
import { graphNeighbours } from '../../src/recall/graph-neighbours.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { cleanupVaults, indexOf, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const DAY = 'episodes/daily/2026-11-28.md';

describe('graph neighbours', () => {
  it('sees a backlink added or removed after an earlier recall, though backlinks are kept between recalls', async () => {
    const index = await indexOf(
      await makeVault({
        [DAY]:
          '---\ndate: 2026-11-28\n---\n# 2026-11-28\n\n- 10:00 **Rain:** Pottery class today. ^e1\n- 10:05 **Rain:** Glazed a bowl. ^e2\n',
        'insights/facts/likes-pottery.md':
          '# Likes pottery\nRain takes a pottery class ([[2026-11-28#^e1]]).\n',
      }),
    );
    const reasons = (anchor: string) => {
      const seed = index.section(`${DAY}#${anchor}`);
      if (!seed) throw new Error(`no section ${anchor}`);
      return graphNeighbours(index, seed.note, seed.section).map((n) => `${n.id} ${n.reason}`);
    };
    expect(reasons('^e1')).toContain('insights/facts/likes-pottery.md#Likes pottery links to [[2026-11-28]]');
    // A backlink to another entry says nothing about this one.
    expect(reasons('^e2').some((r) => r.includes('likes-pottery'))).toBe(false);

    index.upsert(parseNote('insights/facts/bowls.md', '# Bowls\nRain glazed a bowl ([[2026-11-28#^e2]]).\n'));
    expect(reasons('^e2')).toContain('insights/facts/bowls.md#Bowls links to [[2026-11-28]]');
    expect(reasons('^e1').some((r) => r.includes('bowls'))).toBe(false);

    index.remove('insights/facts/likes-pottery.md');
    expect(reasons('^e1').some((r) => r.includes('likes-pottery'))).toBe(false);
  });
});
