import { createRequire } from 'node:module';
import { type Encoding, loadRankTable, type RankTable } from './token-ranks.js';

export type { Encoding } from './token-ranks.js';

export interface Tokenizer {
  encoding: Encoding;
  /** BPE tokens in `text`, special-token markers such as `<|endoftext|>` counted as plain text */
  count(text: string): number;
}

type CountFn = (text: string) => number;

const require = createRequire(import.meta.url);
const counters = new Map<Encoding, CountFn>();

/** The pattern that cuts text into the pieces an encoding merges within (gpt-tokenizer's own). */
function splitPattern(encoding: Encoding): RegExp {
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, RegExp>;
  const pattern =
    constants[encoding === 'o200k_base' ? 'O200K_TOKEN_SPLIT_REGEX' : 'CL100K_TOKEN_SPLIT_REGEX'];
  if (!(pattern instanceof RegExp)) throw new Error(`gpt-tokenizer has no split pattern for ${encoding}`);
  return pattern;
}

function counterFor(encoding: Encoding): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    if (encoding !== 'cl100k_base' && encoding !== 'o200k_base') {
      throw new TypeError(`unknown token encoding ${JSON.stringify(encoding)}`);
    }
    // Loaded when something first counts with it: a process that only recalls never pays.
    counter = bpeCounter(loadRankTable(encoding), splitPattern(encoding));
    counters.set(encoding, counter);
  }
  return counter;
}

/**
 * Counts as gpt-tokenizer's `countTokens` does with no special token allowed (a marker is text):
 * each piece of the split pattern is one token when some token is its bytes, else as many as the
 * byte-pair merges leave, merging the lowest-ranked adjacent pair first.
 */
export function bpeCounter(table: RankTable, split: RegExp): CountFn {
  const encoder = new TextEncoder();
  let scratch = new Uint8Array(1024);
  return (text) => {
    let count = 0;
    for (const [piece] of text.matchAll(split)) {
      if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 6);
      const { written } = encoder.encodeInto(piece, scratch);
      // A lone surrogate is no token's text: its replacement character's bytes are merged.
      if (
        (piece as unknown as { isWellFormed(): boolean }).isWellFormed() &&
        table.rank(scratch, 0, written) !== -1
      )
        count++;
      else count += mergedCount(table, scratch, written);
    }
    return count;
  };
}

/** How many tokens the byte-pair merges make of `piece[0 … length-1]` (gpt-tokenizer's bytePairMerge). */
function mergedCount(table: RankTable, piece: Uint8Array, length: number): number {
  const starts: number[] = [];
  const ranks: number[] = [];
  /** The rank of the bytes `from … to-1` merged; Infinity when no token is them */
  const rankOf = (from: number, to: number | undefined): number => {
    const rank = to === undefined ? -1 : table.mergeRank(piece, from, to);
    return rank === -1 ? Number.POSITIVE_INFINITY : rank;
  };
  for (let i = 0; i <= length; i++) {
    starts.push(i);
    ranks.push(rankOf(i, i < length - 1 ? i + 2 : undefined));
  }
  while (starts.length > 1) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++) {
      if ((ranks[i] as number) < lowest) {
        lowest = ranks[i] as number;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = rankOf(starts[at] as number, starts[at + 2]);
    if (at > 0) ranks[at - 1] = rankOf(starts[at - 1] as number, starts[at + 1]);
  }
  return starts.length - 1;
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
  if (!LONG_RUN.test(text)) return counter(text);
  let tokens = 0;
  for (let at = 0; at < text.length; at += PIECE) {
    // Never split a surrogate pair: that would count two replacement characters.
    let end = Math.min(text.length, at + PIECE);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end++;
    tokens += counter(text.slice(at, end));
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
