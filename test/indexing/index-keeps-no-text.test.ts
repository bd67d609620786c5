import { describe, expect, it } from 'vitest';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { collector } from '../helpers/collect.js';
import { seeded } from '../helpers/seeded.js';

// What the text index keeps of a note (its sections' ids, anchors, paths, terms) must be strings of
// their own: V8 makes a cut of 13 characters or more a view of the string it was cut from, and one
// such view kept for the life of the index keeps the note's whole text with it. A cold index of
// 100,000 notes held 83 MiB of note texts through the anchors of their headings.

const WORDS = ['pottery', 'rain', 'marathon', 'violin', '花园', '火锅', 'garden', 'coffee', 'museum'];

/**
 * A note of some 60 KB of its own text (frontmatter, headings, an entry, links, blocks) in few
 * sections of few distinct words, so that what the index keeps of it is small beside its text.
 */
function noteText(n: number, random: () => number): string {
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  const words = (k: number) => Array.from({ length: k }, word).join(' ');
  const parts = [
    `---\ntitle: "Note ${n} about ${words(4)}"\ntags: [a${n}, b]\n---\n# Note ${n} ${words(3)}\n`,
  ];
  for (let h = 0; h < 4; h++) {
    parts.push(`\n## ${words(3)} heading ${n}-${h} [[Other ${n}]]\n\n${words(2000)} ^b${h}\n\n`);
    parts.push(`- 09:${String(h).padStart(2, '0')} **Rain:** ${words(12)} #tag${h} ^e${h + 1}\n`);
  }
  // Unique, so no two notes share their text.
  return parts.join('').replace(/Note/g, `Note${n}`);
}

describe('the text index', () => {
  it("keeps none of its notes' texts alive once they are indexed", () => {
    const gc = collector();
    const random = seeded(7);
    const count = 300;
    // Warmed up first: the code compiled for a first add is no part of what the index keeps.
    const warm = new TextIndex();
    for (let n = 0; n < 20; n++) warm.add(parseNote(`insights/w${n}.md`, noteText(-n, random)));
    const index = new TextIndex();
    gc();
    const before = process.memoryUsage().heapUsed;
    let textBytes = 0;
    for (let n = 0; n < count; n++) {
      // Built in pieces, then flattened: a file's text is one flat string, as read from disk.
      const text = noteText(n, random);
      textBytes += text.length;
      const note = parseNote(`insights/n${n}.md`, text);
      index.add(note);
    }
    gc();
    const kept = process.memoryUsage().heapUsed - before;
    expect(textBytes).toBeGreaterThan(count * 50_000);
    // The index's own terms, postings and ids are a small part of the texts; the texts themselves
    // (one byte a character at least, two with a Chinese word) would be more than all of it.
    expect(kept, `${kept} bytes kept for ${textBytes} characters of text`).toBeLessThan(textBytes / 2);
    expect(index.search('pottery', { limit: 1 })).toHaveLength(1);
  });
});
