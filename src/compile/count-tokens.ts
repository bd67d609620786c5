import { createRequire } from 'node:module';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

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
const counters = new Map<Encoding, CountFn>([['o200k_base', countO200k]]);

function counterFor(encoding: Encoding): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    // cl100k's ranks are megabytes to parse; load them only when a vault asks for them. The
    // CommonJS build can be loaded synchronously, which keeps count() synchronous.
    if (encoding !== 'cl100k_base') throw new TypeError(`unknown token encoding ${JSON.stringify(encoding)}`);
    counter = (require('gpt-tokenizer/cjs/encoding/cl100k_base') as { countTokens: CountFn }).countTokens;
    counters.set(encoding, counter);
  }
  return counter;
}

const tokenizers = new Map<Encoding, Tokenizer>();

/** A token counter for one encoding (default: o200k_base, the encoding of GPT-4o and later). */
export function getTokenizer(encoding: Encoding = 'o200k_base'): Tokenizer {
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    const counter = counterFor(encoding);
    tokenizer = { encoding, count: (text) => (text === '' ? 0 : counter(text, PLAIN_TEXT)) };
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

/** Number of BPE tokens in `text` (default encoding: o200k_base). */
export function countTokens(text: string, encoding: Encoding = 'o200k_base'): number {
  return getTokenizer(encoding).count(text);
}
