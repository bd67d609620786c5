import { describe, expect, it } from 'vitest';
import type { Layer, Note, Section } from '../../src/core/types.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';

interface SectionSpec {
  anchor?: string;
  heading?: string;
  text: string;
  date?: string;
}

/** A Note as the parser would give it, with only what the index reads filled in. */
function makeNote(
  path: string,
  options: { title?: string; aliases?: string[]; tags?: string[]; sections?: SectionSpec[] } = {},
): Note {
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : '';
  const layer: Layer = ['persona', 'profile', 'episodes', 'insights', 'archive'].includes(folder)
    ? (folder as Layer)
    : 'other';
  const sections: Section[] = (options.sections ?? []).map((spec) => {
    const anchor = spec.anchor ?? '';
    const section: Section = {
      id: `${path}#${anchor}`,
      anchor,
      kind: anchor === '' ? 'preamble' : anchor.startsWith('^') ? 'block' : 'heading',
      text: spec.text,
      start: 0,
      end: spec.text.length,
      line: 1,
    };
    if (spec.heading !== undefined) section.heading = spec.heading;
    if (spec.date !== undefined) section.date = spec.date;
    return section;
  });
  return {
    path,
    layer,
    frontmatter: {},
    title: options.title ?? path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, ''),
    aliases: options.aliases ?? [],
    tags: options.tags ?? [],
    links: [],
    headings: [],
    sections,
    blocks: [],
    warnings: [],
    hash: '',
    size: 0,
    mtimeMs: 0,
  };
}

function indexOf(...notes: Note[]): TextIndex {
  const index = new TextIndex();
  for (const note of notes) index.add(note);
  return index;
}

function ids(index: TextIndex, query: string): string[] {
  return index.search(query).map((hit) => hit.id);
}

describe('TextIndex', () => {
  const moving = makeNote('episodes/daily/2026-11-29.md', {
    sections: [
      { anchor: '^e1', text: '我下个月搬到上海工作', date: '2026-11-29' },
      { anchor: '^e2', text: '我在用 Obsidian 记笔记', date: '2026-11-29' },
      { anchor: '^e3', text: 'We moved the piano downstairs.', date: '2026-11-29' },
    ],
  });

  // The two entries after a match on its day follow it: they hold its words as context (a third
  // of their weight), so a reply is found by the topic it answers.
  it('finds a Chinese word inside a longer sentence', () => {
    const e = (n: number) => `episodes/daily/2026-11-29.md#^e${n}`;
    expect(ids(indexOf(moving), '上海')).toEqual([e(1), e(2), e(3)]);
    expect(ids(indexOf(moving), '工作')).toEqual([e(1), e(2), e(3)]);
  });

  it('finds mixed Chinese and English text by either script', () => {
    const index = indexOf(moving);
    const e = (n: number) => `episodes/daily/2026-11-29.md#^e${n}`;
    expect(ids(index, 'Obsidian')).toEqual([e(2), e(3)]);
    expect(ids(index, '笔记')).toEqual([e(2), e(3)]);
  });

  it('matches another form of an English word', () => {
    expect(ids(indexOf(moving), 'moving')).toEqual(['episodes/daily/2026-11-29.md#^e3']);
  });

  it('matches a Latin prefix and a one-letter typo in a long word', () => {
    const index = indexOf(moving);
    const e = (n: number) => `episodes/daily/2026-11-29.md#^e${n}`;
    expect(ids(index, 'obsid')).toEqual([e(2), e(3)]);
    expect(ids(index, 'obsidan')).toEqual([e(2), e(3)]);
  });

  it('returns hits with their source, date and matched terms', () => {
    expect(indexOf(moving).search('上海').slice(0, 1)).toEqual([
      {
        id: 'episodes/daily/2026-11-29.md#^e1',
        path: 'episodes/daily/2026-11-29.md',
        anchor: '^e1',
        layer: 'episodes',
        date: '2026-11-29',
        // An entry of a day, a block, of importance 0.4 (its layer's), without time or speaker.
        facts: '[6,0.4,null,null,null,null,null]',
        score: expect.any(Number),
        terms: ['上', '上海', '海'],
        queryTerms: ['上', '上海', '海'],
        onlyContext: false,
      },
    ]);
  });

  it('finds a note by an alias', () => {
    const lin = makeNote('profile/people/林小雨.md', {
      title: '林小雨',
      aliases: ['Lin', '小雨'],
      sections: [{ text: '大学同学，住在杭州。' }],
    });
    const index = indexOf(
      lin,
      makeNote('insights/travel.md', { sections: [{ text: 'Trains are faster.' }] }),
    );
    expect(ids(index, 'Lin')).toEqual(['profile/people/林小雨.md#']);
  });

  it('ranks a title match above a mention in the body', () => {
    const titled = makeNote('insights/shanghai.md', {
      title: 'Shanghai',
      sections: [{ text: 'Rent, neighbourhoods and the metro.' }],
    });
    const mention = makeNote('insights/cities.md', {
      title: 'Cities',
      sections: [{ text: 'Shanghai, Tokyo and Berlin are on the list.' }],
    });
    expect(ids(indexOf(mention, titled), 'shanghai')).toEqual([
      'insights/shanghai.md#',
      'insights/cities.md#',
    ]);
  });

  it('weighs an alias match above the same word in the body', () => {
    // Mirror images: one field each, same lengths, so only the field boost can break the tie.
    const alias = makeNote('insights/z-alias.md', {
      title: 'Alpha',
      aliases: ['Shanghai'],
      sections: [{ text: '' }],
    });
    const body = makeNote('insights/a-body.md', { title: 'Beta', sections: [{ text: 'Shanghai' }] });
    expect(ids(indexOf(body, alias), 'shanghai')).toEqual(['insights/z-alias.md#', 'insights/a-body.md#']);
  });

  it('searches the section heading', () => {
    const note = makeNote('profile/user.md', {
      title: 'User',
      sections: [
        { anchor: 'Food', heading: 'Food', text: 'Likes noodles.' },
        { anchor: 'Work', heading: 'Work', text: 'Designer at a studio.' },
      ],
    });
    expect(ids(indexOf(note), 'work')).toEqual(['profile/user.md#Work']);
  });

  it('finds a note without sections by its title', () => {
    const index = indexOf(makeNote('insights/empty.md', { title: 'Gardening', tags: ['hobby'] }));
    expect(ids(index, 'gardening')).toEqual(['insights/empty.md#']);
    expect(ids(index, 'hobby')).toEqual(['insights/empty.md#']);
  });

  it('returns nothing for an empty or stop-word-only query', () => {
    const index = indexOf(moving);
    expect(index.search('')).toEqual([]);
    expect(index.search('  ?! ')).toEqual([]);
    expect(index.search('the and of')).toEqual([]);
  });

  it('removes every section of a note', () => {
    const index = indexOf(
      moving,
      makeNote('insights/piano.md', { sections: [{ text: 'The piano needs tuning.' }] }),
    );
    expect(index.size).toBe(4);
    index.remove('episodes/daily/2026-11-29.md');
    expect(index.has('episodes/daily/2026-11-29.md')).toBe(false);
    expect(index.size).toBe(1);
    expect(ids(index, '上海')).toEqual([]);
    expect(ids(index, 'piano')).toEqual(['insights/piano.md#']);
    index.remove('not/there.md');
    expect(index.size).toBe(1);
  });

  it('replaces a note: old words are gone, new words are found', () => {
    const index = indexOf(makeNote('insights/plan.md', { sections: [{ text: 'Move to Shanghai.' }] }));
    index.replace(
      makeNote('insights/plan.md', {
        sections: [{ text: 'Stay in Berlin.' }, { anchor: 'Why', text: 'Friends.' }],
      }),
    );
    expect(ids(index, 'shanghai')).toEqual([]);
    expect(ids(index, 'berlin')).toEqual(['insights/plan.md#']);
    expect(index.size).toBe(2);
  });

  it('treats add of a path already indexed as a replace', () => {
    const index = indexOf(makeNote('insights/plan.md', { sections: [{ text: 'Move to Shanghai.' }] }));
    index.add(makeNote('insights/plan.md', { sections: [{ text: 'Stay in Berlin.' }] }));
    expect(index.size).toBe(1);
    expect(ids(index, 'shanghai')).toEqual([]);
  });

  it('merges sections that share an id instead of failing', () => {
    const note = makeNote('insights/dup.md', {
      sections: [
        { anchor: 'A', text: 'apples' },
        { anchor: 'A', text: 'pears' },
      ],
    });
    const index = indexOf(note);
    expect(index.size).toBe(1);
    expect(ids(index, 'pears')).toEqual(['insights/dup.md#A']);
  });

  it('filters hits by layer before applying the limit', () => {
    const index = indexOf(
      makeNote('profile/user.md', {
        title: 'User',
        sections: [{ text: 'Tea every morning, tea at night, more tea.' }],
      }),
      makeNote('episodes/daily/2026-11-28.md', {
        sections: [{ anchor: '^e1', text: 'Had tea.', date: '2026-11-28' }],
      }),
    );
    expect(ids(index, 'tea')).toEqual(['profile/user.md#', 'episodes/daily/2026-11-28.md#^e1']);
    expect(
      index.search('tea', { filter: (hit) => hit.layer === 'episodes', limit: 1 }).map((hit) => hit.id),
    ).toEqual(['episodes/daily/2026-11-28.md#^e1']);
    expect(index.search('tea', { limit: 1 }).map((hit) => hit.id)).toEqual(['profile/user.md#']);
  });

  it('orders equal scores by id', () => {
    const same = { title: 'Note', sections: [{ text: 'Hiking in the hills.' }] };
    const index = indexOf(
      makeNote('insights/c.md', same),
      makeNote('insights/a.md', same),
      makeNote('insights/b.md', same),
    );
    const hits = index.search('hiking');
    expect(hits.map((hit) => hit.id)).toEqual(['insights/a.md#', 'insights/b.md#', 'insights/c.md#']);
    expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
  });
});

describe('what an entry is found by beyond its words', () => {
  const diary = makeNote('episodes/daily/2023-05-08.md', {
    title: 'diary',
    sections: [
      { anchor: '^e1', text: 'Went to the pottery class.', date: '2023-05-08' },
      { anchor: '^e2', text: 'Bought bread.', date: '2023-06-01' },
    ],
  });

  it('finds an entry by its day written as people say it (8 May 2023)', () => {
    const index = indexOf(diary);
    expect(index.search('what happened in May 2023').map((h) => h.anchor)[0]).toBe('^e1');
    expect(index.search('2023-06-01')[0]?.anchor).toBe('^e2');
  });

  it('weighs rare query words above common ones when asked to', () => {
    const common = Array.from({ length: 30 }, (_, i) =>
      makeNote(`episodes/daily/d${i}.md`, { sections: [{ anchor: '^e1', text: `I feel fine, day ${i}` }] }),
    );
    const target = makeNote('episodes/daily/x.md', {
      sections: [
        { anchor: '^e1', text: 'The adoption agency called back about the interview for the adoption' },
      ],
    });
    const noisy = makeNote('episodes/daily/y.md', {
      sections: [{ anchor: '^e1', text: 'feel feel, I feel adoption' }],
    });
    const index = indexOf(...common, target, noisy);
    const plain = index.search('how does she feel about adoption');
    const rare = index.search('how does she feel about adoption', { rareTerms: true });
    const gap = (hits: typeof plain) =>
      (hits.find((h) => h.path === 'episodes/daily/x.md')?.score ?? 0) /
      (hits.find((h) => h.path === 'episodes/daily/d0.md')?.score ?? 1);
    expect(gap(rare)).toBeGreaterThan(gap(plain));
  });
});
