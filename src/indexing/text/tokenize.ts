import { stem } from './stem.js';
import { STOP_WORDS } from './stop-words.js';

/** Chinese and Japanese characters: Han, kana, and the marks that live inside their words (ー 〆; 々 is Han). */
const CJK_CLASS = '[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}ー〆]';
const CJK_RUN = new RegExp(`${CJK_CLASS}+`, 'gu');
/**
 * One character of a Chinese or Japanese run. tokenize() keeps those runs apart from every other
 * script, so a term that holds one of these characters holds nothing else.
 */
export const CJK_CHARACTER = new RegExp(CJK_CLASS, 'u');

/**
 * A word of any other script (Latin, Cyrillic, Hangul, digits …): a letter or digit, then letters,
 * marks and digits, joined across internal apostrophes so that `don't` is one token.
 */
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}\p{N}]+)*/gu;
/** Emoji variation selectors and the keycap mark are marks too: without this `1️⃣` would be a word. */
const EMOJI_MARKS = /[\uFE00-\uFE0F\u20E3]/g;

const APOSTROPHES = /['’]/g;
/** Half of a surrogate pair: a character beyond the BMP (rare Han, emoji) is two UTF-16 code units. */
export const SURROGATE = /[\uD800-\uDFFF]/;
const ASCII_WORD = /^[a-z]+$/;

// One Segmenter for the process: building one loads ICU's dictionaries, and tokenize() runs for
// every section of every note. The 'zh' word dictionary also segments Japanese.
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * Splits text into terms, the same way for notes and for queries. NFKC-normalised and lower-cased
 * (so full-width `ＡＢＣ１２３` is `abc123`). Words of spaced scripts split on anything that is not
 * a letter, mark or digit; emoji and punctuation are dropped. Apostrophes inside a word are removed
 * (`don't` → `dont`, `o'neill` → `oneill`) and a possessive `'s` is dropped (`lin's` → `lin`).
 * A Chinese or Japanese run yields the words `Intl.Segmenter` finds in it plus every overlapping
 * character bigram, because the segmenter may cut a short query (`上海`) differently from the same
 * characters in a sentence (`上海工作`); the bigrams always meet. Every character is a term too, for one-character words.
 */
export function tokenize(text: string): string[] {
  const normal = text.normalize('NFKC').toLowerCase().replace(EMOJI_MARKS, '');
  const terms: string[] = [];
  const longRuns: string[] = [];
  let last = 0;
  for (const match of normal.matchAll(CJK_RUN)) {
    if (match.index > last) pushWords(normal.slice(last, match.index), terms);
    const run = match[0];
    if (pushBigrams(run, terms)) longRuns.push(run);
    last = match.index + run.length;
  }
  if (last < normal.length) pushWords(last === 0 ? normal : normal.slice(last), terms);
  if (longRuns.length > 0) segmentRuns(longRuns, terms);
  return terms;
}

/**
 * Past this many UTF-16 units one Segmenter pass costs more than linear time (ICU's dictionary
 * break iterator: 16,000 short lines joined took 44 s, the same lines in passes of about this
 * size 0.4 s), and below about a hundred the cost of each call dominates.
 */
export const SEGMENTER_PASS = 1000;

/**
 * Segments the runs in passes of at most SEGMENTER_PASS units: short runs are batched (a newline
 * keeps them apart), and a longer run is cut into pieces of that size. A word that straddles a cut
 * is lost as a word but not as a term: its characters and bigrams are already in `terms`.
 */
function segmentRuns(runs: string[], terms: string[]): void {
  let batch = '';
  for (const run of runs) {
    if (batch.length > 0 && batch.length + 1 + run.length > SEGMENTER_PASS) {
      pushSegmenterWords(batch, terms);
      batch = '';
    }
    if (run.length <= SEGMENTER_PASS) {
      batch = batch.length > 0 ? `${batch}\n${run}` : run;
      continue;
    }
    for (const piece of cutRun(run)) pushSegmenterWords(piece, terms);
  }
  if (batch.length > 0) pushSegmenterWords(batch, terms);
}

/** Pieces of at most SEGMENTER_PASS units, never splitting a surrogate pair. */
function* cutRun(run: string): Generator<string> {
  let start = 0;
  while (start < run.length) {
    let end = Math.min(start + SEGMENTER_PASS, run.length);
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end--;
    yield run.slice(start, end);
    start = end;
  }
}

/**
 * Turns a term from tokenize() into the indexed form, identically for notes and queries:
 * English stop words become null, a–z words are stemmed (`moving`, `moved`, `moves` → `move`),
 * everything else (CJK, digits, other scripts) is kept as it is.
 */
export function processTerm(term: string): string | null {
  if (term.length === 0 || STOP_WORDS.has(term)) return null;
  return ASCII_WORD.test(term) ? stem(term) : term;
}

function pushWords(text: string, terms: string[]): void {
  for (const match of text.matchAll(WORD)) {
    let word = match[0];
    if (word.includes("'") || word.includes('’')) {
      if (/['’]s$/.test(word)) word = word.slice(0, -2);
      word = word.replace(APOSTROPHES, '');
    }
    terms.push(word);
  }
}

/** Pushes the bigrams of a run, or a one-character run whole; true when the run is longer than one. */
function pushBigrams(run: string, terms: string[]): boolean {
  // Rare Han characters (CJK Extension B and later) are surrogate pairs: bigrams must count characters.
  const chars: ArrayLike<string> = SURROGATE.test(run) ? Array.from(run) : run;
  if (chars.length === 1) {
    terms.push(run);
    return false;
  }
  // Single characters too: many Chinese words are one character (猫, 住, 睡), and a query's
  // neighbouring characters (的猫叫) make bigrams that a note never contains (白猫).
  for (let i = 0; i < chars.length; i++) {
    terms.push(chars[i]!);
    if (i + 1 < chars.length) terms.push(chars[i]! + chars[i + 1]!);
  }
  return true;
}

function pushSegmenterWords(runs: string, terms: string[]): void {
  for (const { segment, isWordLike } of segmenter.segment(runs)) {
    // Words of one or two characters are already among the unigrams and bigrams.
    if (isWordLike && characterCount(segment) > 2) terms.push(segment);
  }
}

function characterCount(text: string): number {
  return SURROGATE.test(text) ? Array.from(text).length : text.length;
}
