// Random day notes built from what makes an append hard to read alone (a code fence, HTML block
// or `%%` comment left open, frontmatter, a heading whose section grows, an older entry that
// mentions a later block id), and random entries to append to them, from a seeded PRNG.
// @ts-expect-error: a plain ES module of the benchmarks
import { makeRandom } from '../../bench/prng.mjs';
import { renderEntry } from '../../src/write/episode-entry.js';

export type Random = {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
};

export const random = (seed: number): Random => makeRandom(seed) as Random;

export const WORDS = [
  'pottery',
  'Hangzhou',
  'quokka',
  'tea',
  'knee',
  'Sunday',
  '我们去杭州吃饭了',
  '今天很累',
  '東京',
  'ラーメン',
  '[[Mia]]',
  '[[2026-11-29#^e3]]',
  '[[profile/user|me]]',
  '[a link](Notes/x.md)',
  '#trip',
  '#家',
  '`code`',
  '**bold**',
  'e7',
  '^',
  '%',
  'x^e2',
];

const SPEAKERS = ['Rain', '小满', 'Mia Lin', undefined];

export function words(r: Random, min = 1, max = 8): string {
  const out: string[] = [];
  for (let n = r.int(min, max); n > 0; n--) out.push(r.pick(WORDS));
  return out.join(' ');
}

const time = (r: Random) =>
  `${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}`;

/** An entry line as mem writes it (renderEntry), with a random text, speaker, tags and id. */
export function entryLine(r: Random, id: string): string {
  const text = r.chance(0.2) ? `${words(r)}\n${words(r)}` : words(r);
  return renderEntry({
    text,
    time: time(r),
    blockId: id,
    speaker: r.pick(SPEAKERS),
    ...(r.chance(0.1) ? { kind: 'event' as const } : {}),
    ...(r.chance(0.15) ? { tags: [r.pick(['trip', 'interrupted', '猫'])] } : {}),
    ...(r.chance(0.1) ? { importance: r.int(0, 10) / 10 } : {}),
  });
}

/** A day note: pieces that are hard for an append, with entries numbered e1, e2 … */
export function dayNote(r: Random): { text: string; next: number; mentioned: string[] } {
  let next = 1;
  const mentioned: string[] = [];
  const pieces: string[] = [];
  const fm = r.int(0, 5);
  if (fm === 1) pieces.push('---\ndate: 2026-11-30\ntags: [day]\n---');
  if (fm === 2) pieces.push('---\n: : bad [\n---');
  if (fm === 3) pieces.push('---\ntitle: open');
  const piece = (): string => {
    switch (r.int(0, 24)) {
      case 0:
        return r.pick(['## Memory', '# 日记', '### Notes [[Mia]]', '## Memory %%x%%']);
      case 1:
        return words(r);
      case 2:
        return '```\ncode [[Link]] ^e9\n```';
      case 3:
        return '```js\nconst x = 1';
      case 4:
        return r.pick(['<!-- hidden', '<!-- c -->', '<div>\nhtml [[B]]', '<div>\n\n</div>']);
      case 5:
        return r.pick(['%% note %%', '%% open', '- 10:00 text %%x%% ^e40', '%%']);
      case 6:
        return r.pick(['> quote [[A]]', '> - 09:00 quoted ^e41']);
      case 7:
        return '| a | b |\n|---|---|\n| 1 | 2 |';
      case 8:
        return r.pick(['2. numbered', '1. numbered ^e42', '-', '* * *', 'Title\n---', '    indented code']);
      case 9:
        return `- 09:00 parent ^e${next++}\n  - sub ^e${next++}`;
      case 10: {
        const later = `e${next + r.int(0, 4)}`;
        mentioned.push(later);
        return `- 09:00 cites\n  the next one ^${later}\n  and more ^e${next++}`;
      }
      case 11:
        return `- 10:00 code ^e${next++}\n  \`\`\`\n  inside`;
      case 12:
        return `- 10:00 ${words(r)}\n  <!-- open ^e${next++}`;
      case 13:
        return `- 10:00 ${words(r)} ^e${next++}\n  %% open`;
      case 14:
        return `[ref]: https://example.com\n\n- [ref] ^e${next++}`;
      default:
        return entryLine(r, `e${next++}`);
    }
  };
  for (let n = r.int(0, 10); n > 0; n--) pieces.push(piece());
  let text = pieces.join(r.chance(0.7) ? '\n' : '\n\n');
  text += r.pick(['\n', '\n', '\n', '', '\n\n', '  \n']);
  // A byte-order mark, as some editors write one.
  if (r.chance(0.05)) text = `\ufeff${text}`;
  return { text, next, mentioned };
}

/** What is appended: mostly entries as the writer appends them, now and then something else. */
export function appended(r: Random, state: { next: number; mentioned: string[] }): string {
  if (r.chance(0.1))
    return r.pick([
      '```\n',
      '## New\n',
      '2. x\n',
      '%% open\n',
      '- ---\n',
      'text line\n',
      '---\n',
      '  indented\n',
      '<!-- x\n',
      '- 11:00 ok ^e90\n\ntrailing words\n',
      '- 11:00 ok ^e91\n- 12:00 under ^e92\n  - nested ^e93\n',
      '* star item ^e94\n',
      '- 11:00 ```open ^e95\n',
    ]);
  const lines: string[] = [];
  for (let n = r.int(1, 3); n > 0; n--) {
    const id = r.chance(0.1)
      ? r.pick(state.mentioned.length > 0 ? state.mentioned : ['e1'])
      : r.chance(0.05)
        ? 'e1'
        : `e${state.next++}`;
    lines.push(entryLine(r, id));
  }
  return `${lines.join('\n')}\n`;
}
