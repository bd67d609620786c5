import { IRREGULAR_FORMS } from './irregular-forms.js';

/**
 * A light English stemmer: the plural and -ed/-ing steps of Porter2 (Snowball English), -ly after a
 * valid li-ending, and a final y/ie → i so `city`/`cities` and `movie`/`movies` meet.
 * It joins `moving`/`moved`/`moves`/`move` and `hiking`/`hike`; Porter2's later steps (-ational,
 * -ness, -ive …) are left out because they conflate more words than a memory search wants.
 * Irregular forms no suffix rule reaches (`went`, `bought`, `children`, `better`) are looked up
 * first and stem as their base word does (irregular-forms.ts).
 * Input: one lower-case word of a–z; anything else should not be passed in.
 */
export function stem(word: string): string {
  return IRREGULAR_STEMS.get(word) ?? regularStem(word);
}

/** Each irregular form → the stem of its base word, so `bought`, `buys` and `buying` meet. */
const IRREGULAR_STEMS: ReadonlyMap<string, string> = new Map(
  [...IRREGULAR_FORMS].map(([form, base]) => [form, regularStem(base)]),
);

function regularStem(word: string): string {
  if (word.length <= 2) return word;
  let w = stripPlural(word);
  w = stripLy(w);
  w = stripEdIng(w);
  // Porter2 step 1c, extended to -ie: `city`/`cities`/`citi`, `movie`/`movies`, `try`/`tried`.
  if (w.length >= 3 && w.endsWith('y') && !isVowel(w, w.length - 2)) return w.slice(0, -1) + 'i';
  if (w.length >= 3 && w.endsWith('ie')) return w.slice(0, -1);
  return w;
}

function stripPlural(w: string): string {
  // Three-letter words (`gas`, `bus`, `yes`) are too short to tell a plural from a word.
  if (w.length <= 3) return w;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  if (/(?:sh|ch|x)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w) && hasVowel(w.slice(0, -2))) return w.slice(0, -1);
  return w;
}

/** Porter2's valid li-endings: `quickly` → `quick`, while `family`, `apply`, `early` stay whole. */
function stripLy(w: string): string {
  if (w.length >= 6 && w.endsWith('ly') && 'cdeghkmnrt'.includes(w[w.length - 3] ?? ''))
    return w.slice(0, -2);
  return w;
}

function stripEdIng(w: string): string {
  if (w.endsWith('eed')) {
    // `agreed` → `agree`, but `speed` and `need` keep their -eed (Porter2: only inside R1).
    return r1Start(w) <= w.length - 3 ? w.slice(0, -1) : w;
  }
  if (w.endsWith('ied') && w.length >= 4) return w.slice(0, -2);
  const suffix = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0;
  if (suffix === 0) return w;
  const base = w.slice(0, -suffix);
  // `red`, `sing`, `bring`: no vowel left, so the ending was part of the word.
  if (!hasVowel(base)) return w;
  if (/(?:at|bl|iz)$/.test(base)) return base + 'e';
  if (/(?:bb|dd|ff|gg|mm|nn|pp|rr|tt)$/.test(base)) return base.slice(0, -1);
  // `hik` → `hike`, `mov` → `move`, `us` → `use`: a short stem had lost its silent e.
  return isShort(base) ? base + 'e' : base;
}

/** y is a vowel unless it starts the word or follows a vowel (`yes`, `play` vs `city`). */
function isVowel(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return true;
  return c === 'y' && i > 0 && !isVowel(w, i - 1);
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (isVowel(w, i)) return true;
  return false;
}

/** Start of Porter2's R1: just after the first consonant that follows a vowel. */
function r1Start(w: string): number {
  for (let i = 1; i < w.length; i++) if (!isVowel(w, i) && isVowel(w, i - 1)) return i + 1;
  return w.length;
}

/** Porter2's short word: ends in a short syllable and R1 is empty (`hop`, `us`, but not `fail`). */
function isShort(w: string): boolean {
  const n = w.length;
  if (r1Start(w) < n) return false;
  if (n === 2) return isVowel(w, 0) && !isVowel(w, 1);
  const last = w[n - 1] ?? '';
  return n >= 3 && !isVowel(w, n - 3) && isVowel(w, n - 2) && !isVowel(w, n - 1) && !'wxy'.includes(last);
}
