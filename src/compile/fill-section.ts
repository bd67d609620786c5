// Fills one section of the context document within its share of the budget, and joins them.
import type { Tokenizer } from './count-tokens.js';
import { cutToTokens } from './cut-text.js';
import { type CompileSectionName, sectionHeading } from './render.js';

export interface CompiledItem {
  path: string;
  anchor: string;
  title: string;
  /** The text as it went into the document (cut ones end with `…`) */
  text: string;
  tokens: number;
  score: number;
  reason: string;
  cut: boolean;
}

export interface CompiledSection {
  name: CompileSectionName;
  budget: number;
  used: number;
  items: CompiledItem[];
}

/** Items shorter than this after a cut say too little to be worth their citation. */
const MIN_CUT_TOKENS = 16;

export interface Candidate {
  key: string;
  path: string;
  anchor: string;
  title: string;
  score: number;
  reason: string;
  /** Renders the item around a (possibly cut) text */
  render: (text: string) => string;
  text: string;
}

export interface Filled {
  section: CompiledSection;
  /** The rendered Markdown of each item, parallel to section.items */
  rendered: string[];
}

/**
 * Fills one section from `candidates`, best first, within `budget` tokens (heading included).
 * An item too long for what is left is cut at a sentence boundary when enough of it fits.
 */
/**
 * A whole note (key = its path) and one of its sections would say the same thing twice, so taking
 * either rules out the other. `taken` holds whole-note paths, section ids and `part:` markers.
 */
function isTaken(candidate: Candidate, taken: Set<string>): boolean {
  const whole = candidate.key === candidate.path;
  return taken.has(candidate.key) || taken.has(whole ? `part:${candidate.path}` : candidate.path);
}

function take(candidate: Candidate, taken: Set<string>): void {
  taken.add(candidate.key);
  if (candidate.key !== candidate.path) taken.add(`part:${candidate.path}`);
}

export function fill(
  name: CompileSectionName,
  budget: number,
  candidates: Candidate[],
  tokenizer: Tokenizer,
  taken: Set<string>,
): Filled {
  const headingTokens = tokenizer.count(`${sectionHeading(name)}\n`);
  const filled: Filled = { section: { name, budget, used: 0, items: [] }, rendered: [] };
  let left = budget - headingTokens;
  for (const candidate of candidates) {
    if (left < MIN_CUT_TOKENS) break;
    // Nothing to say (a template's empty headings, a note of comments only): no item.
    if (candidate.text === '' || isTaken(candidate, taken)) continue;
    let text = candidate.text;
    let rendered = candidate.render(text);
    let tokens = tokenizer.count(rendered);
    let cut = false;
    if (tokens > left) {
      const room = left - tokenizer.count(candidate.render(''));
      if (room < MIN_CUT_TOKENS) continue;
      const shortened = cutToTokens(text, room, tokenizer.count);
      if (shortened.text === '') continue;
      text = shortened.text;
      rendered = candidate.render(text);
      tokens = tokenizer.count(rendered);
      if (tokens > left) continue;
      cut = true;
    }
    take(candidate, taken);
    left -= tokens;
    filled.section.used += tokens;
    filled.rendered.push(rendered);
    const { path, anchor, title, score, reason } = candidate;
    filled.section.items.push({ path, anchor, title, text, tokens, score, reason, cut });
  }
  if (filled.section.items.length > 0) filled.section.used += headingTokens;
  return filled;
}

export function assemble(filled: Filled[]): string {
  return filled
    .filter((f) => f.rendered.length > 0)
    .map((f) => sectionHeading(f.section.name) + f.rendered.join(''))
    .join('\n');
}
