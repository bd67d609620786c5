/**
 * Pieces of index terms that share prefixes, differ in one code unit, or are surrogate pairs, lone
 * surrogates, combining marks and NUL: what a term dictionary must tell apart.
 */
const PIECES = [
  'a',
  'b',
  'ab',
  'walk',
  'ing',
  '上',
  '海',
  '灯塔',
  'é',
  'e\u0301',
  '😀',
  '\ud83d',
  '\ude00',
  'ß',
  'z',
  '\u0000',
];

/** `count` distinct terms of one to four pieces, drawn with `next` (a seeded PRNG). */
export function termsOf(next: () => number, count: number): string[] {
  const terms = new Set<string>();
  while (terms.size < count) {
    let term = '';
    const parts = 1 + Math.floor(next() * 4);
    for (let p = 0; p < parts; p++) term += PIECES[Math.floor(next() * PIECES.length)];
    terms.add(term);
  }
  return [...terms];
}
