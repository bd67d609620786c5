export interface CutResult {
  /** The text itself when it fits; else a prefix ending at a boundary, followed by ` …`; or `''` */
  text: string;
  /** `count(text)` */
  tokens: number;
  /** False exactly when `text` is the input, whole */
  cut: boolean;
}

/** Appended to a cut text so a reader (or a model) knows something follows. */
const ELLIPSIS = ' …';

const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const CLOSERS = '["\'”’」』）)\\]】》]*';
// ASCII . ! ? end a sentence only before a space or the end (not in 3.14 or example.com);
// the full-width marks end one wherever they are.
const SENTENCE_END = new RegExp(`[.!?。！？；…]+${CLOSERS}`, 'gu');
const FULL_WIDTH_END = /[。！？；…]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// Chinese and Japanese have no spaces; ICU's dictionary finds their word boundaries.
const words = new Intl.Segmenter('zh', { granularity: 'word' });

/** Offsets where one grapheme cluster ends and the next begins: the only safe places to cut. */
function graphemeBoundaries(text: string): Set<number> {
  const boundaries = new Set<number>([text.length]);
  for (const { index } of graphemes.segment(text)) boundaries.add(index);
  return boundaries;
}

/** Ends of paragraphs: where a blank line begins. */
function paragraphEnds(text: string): number[] {
  return [...text.matchAll(/\r?\n[ \t]*\r?\n/g)].map((match) => match.index);
}

/** Ends of sentences, after the closing quotes or brackets that follow the mark, and ends of lines. */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].length;
    const next = text[end];
    if (FULL_WIDTH_END.test(match[0]) || next === undefined || /\s/.test(next)) ends.push(end);
  }
  // A Markdown list item or heading often has no final mark; its line break ends it.
  for (const match of text.matchAll(/\n/g)) ends.push(match.index);
  return ends;
}

/**
 * The sentences of `text` as [start, end) offsets, in order, leading whitespace left out: split
 * where sentenceEnds() would cut. A text with no sentence end is one span.
 */
export function sentenceSpans(text: string): Array<[number, number]> {
  const ends = [...new Set(sentenceEnds(text))].sort((a, b) => a - b);
  const spans: Array<[number, number]> = [];
  let start = 0;
  for (const end of [...ends, text.length]) {
    while (start < end && /\s/.test(text[start] ?? '')) start++;
    if (end > start) spans.push([start, end]);
    start = Math.max(start, end);
  }
  return spans;
}

/** Ends of words: before whitespace, and between words where Chinese or Japanese text is involved. */
function wordEnds(text: string): number[] {
  const ends = [...text.matchAll(/\S(?=\s)/gu)].map((match) => match.index + match[0].length);
  if (CJK.test(text)) {
    for (const { index, segment } of words.segment(text)) {
      if (index === 0) continue;
      const before = [...text.slice(Math.max(0, index - 2), index)].at(-1) ?? '';
      const after = [...segment.slice(0, 2)][0] ?? '';
      if (CJK.test(before) || CJK.test(after)) ends.push(index);
    }
  }
  return ends;
}

/**
 * The longest candidate cut whose text fits, by binary search over the candidates. BPE counts
 * are not additive, and only almost monotonic in the prefix length, so every answer is counted
 * whole; in a rare non-monotonic spot the search may settle for a slightly shorter cut.
 */
function longestFitting(
  text: string,
  cuts: number[],
  safe: Set<number>,
  maxTokens: number,
  count: (s: string) => number,
): CutResult | undefined {
  // Trailing whitespace before the ellipsis is noise; trimming can land mid-cluster, so check after.
  const ends = [...new Set(cuts.map((cut) => text.slice(0, cut).trimEnd().length))]
    .filter((end) => end > 0 && safe.has(end))
    .sort((a, b) => a - b);
  let best: CutResult | undefined;
  let low = 0;
  let high = ends.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const candidate = text.slice(0, ends[middle]) + ELLIPSIS;
    const tokens = count(candidate);
    if (tokens <= maxTokens) {
      best = { text: candidate, tokens, cut: true };
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return best;
}

/**
 * A prefix of `text` that already counts more than `maxTokens`, so no cut needs to look past it:
 * finding boundaries costs more than linear time in the length searched, and a 33 KB section cut
 * to 727 tokens took 1.7 s. It starts a quarter past the length the text's own density predicts.
 */
function prefixOver(text: string, maxTokens: number, whole: number, count: (s: string) => number): string {
  for (
    let chars = Math.ceil((text.length * maxTokens * 1.25) / whole) + 16;
    chars < text.length;
    chars *= 1.5
  ) {
    const prefix = text.slice(0, Math.ceil(chars));
    if (count(prefix) > maxTokens) return prefix;
  }
  return text;
}

/** A cut at a coarser boundary is preferred while it keeps at least this share of the finest cut. */
const KEEP_SHARE = 0.8;

/**
 * Fits `text` into `maxTokens` as counted by `count`. Returns it whole when it fits; otherwise a
 * prefix ending at a paragraph boundary, a sentence boundary or a word boundary, followed by ` …`
 * (counted), never splitting a grapheme cluster. The coarsest boundary wins unless it would throw
 * away much more than a finer one (a short first paragraph must not cost the rest of the room).
 * When not even one word and the ellipsis fit, returns `''`.
 */
export function cutToTokens(text: string, maxTokens: number, count: (s: string) => number): CutResult {
  const whole = count(text);
  if (whole <= maxTokens) return { text, tokens: whole, cut: false };
  const scope = prefixOver(text, maxTokens, whole, count);
  const safe = graphemeBoundaries(scope);
  // The end of a shortened scope is no boundary of the text (it may split a word or a cluster).
  if (scope.length < text.length) safe.delete(scope.length);
  const found = [paragraphEnds, sentenceEnds, wordEnds]
    .map((cuts) => longestFitting(scope, cuts(scope), safe, maxTokens, count))
    .filter((cut): cut is CutResult => cut !== undefined);
  const longest = Math.max(0, ...found.map((cut) => cut.text.length));
  return found.find((cut) => cut.text.length >= KEEP_SHARE * longest) ?? { text: '', tokens: 0, cut: true };
}
