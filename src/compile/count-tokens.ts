import { createRequire } from 'node:module';

export type Encoding = 'o200k_base' | 'cl100k_base';

export interface Tokenizer {
  encoding: Encoding;
  /** BPE tokens in `text`, special-token markers such as `<|endoftext|>` counted as plain text */
  count(text: string): number;
}

type CountFn = (text: string, options: { disallowedSpecial: Set<string> }) => number;

// A note may quote `<|endoftext|>`; by default the library throws on it. An empty disallowed set
// with nothing allowed makes it ordinary text, as it is for a model reading the context.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);
const counters = new Map<Encoding, CountFn>();

function counterFor(encoding: Encoding): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    // The ranks are megabytes to parse (about 40 MiB of memory for o200k): load an encoding only
    // when something counts with it, so a process that only recalls never pays. The CommonJS
    // build loads synchronously, which keeps count() synchronous.
    if (encoding !== 'cl100k_base' && encoding !== 'o200k_base') {
      throw new TypeError(`unknown token encoding ${JSON.stringify(encoding)}`);
    }
    counter = (require(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens: CountFn }).countTokens;
    counters.set(encoding, counter);
  }
  return counter;
}

/**
 * BPE merging costs quadratic time in the length of one pre-token, and a run of CJK text or a long
 * token without spaces is one pre-token: a 20,000-character line of Chinese took 15 s to count.
 * Text holding such a run is counted in pieces of this many characters; cutting can only stop
 * merges, so the sum is at least the true count and a budget is never exceeded.
 */
const PIECE = 400;
const LONG_RUN = new RegExp(`\\S{${PIECE},}`);

function countBounded(counter: CountFn, text: string): number {
  if (!LONG_RUN.test(text)) return counter(text, PLAIN_TEXT);
  let tokens = 0;
  for (let at = 0; at < text.length; at += PIECE) {
    // Never split a surrogate pair: that would count two replacement characters.
    let end = Math.min(text.length, at + PIECE);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end++;
    tokens += counter(text.slice(at, end), PLAIN_TEXT);
    at = end - PIECE;
  }
  return tokens;
}

/** Counts remembered per encoding; compile counts the same persona and profile text every turn. */
const MEMO_ENTRIES = 4096;

const tokenizers = new Map<Encoding, Tokenizer>();

/** A token counter for one encoding (default: o200k_base, the encoding of GPT-4o and later). */
export function getTokenizer(encoding: Encoding = 'o200k_base'): Tokenizer {
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    const counter = counterFor(encoding);
    const memo = new Map<string, number>();
    tokenizer = {
      encoding,
      count: (text) => {
        if (text === '') return 0;
        let tokens = memo.get(text);
        if (tokens === undefined) {
          tokens = countBounded(counter, text);
          // Dropping everything at the cap is crude but cheap, and the turn's items come back at once.
          if (memo.size >= MEMO_ENTRIES) memo.clear();
          memo.set(text, tokens);
        }
        return tokens;
      },
    };
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

/** Number of BPE tokens in `text` (default encoding: o200k_base). */
export function countTokens(text: string, encoding: Encoding = 'o200k_base'): number {
  return getTokenizer(encoding).count(text);
}
