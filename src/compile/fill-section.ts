// Fills one section of the context document within its share of the budget, and joins them.
import type { Tokenizer } from './count-tokens.js';
import { cutToTokens } from './cut-text.js';
import type { NearDuplicates } from './near-duplicates.js';
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
  /**
   * A line the item shares with others of its note (an episode entry's day link), written once
   * above them; such items are shown together, in the order of `position`
   */
  group?: string;
  /** Where the item sits in its note, to order the items of one group */
  position?: number;
}

export interface Filled {
  section: CompiledSection;
  /** The rendered Markdown of each item, parallel to section.items */
  rendered: string[];
  /** The group line and position of each item, parallel to section.items */
  placement: Array<{ group?: string; position: number }>;
  /** A line written under the section's heading, before its items (counted with the heading) */
  lead?: string;
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
  /** The entries already taken by any section, to leave out one that says the same again */
  said?: NearDuplicates,
  /** A line under the heading, written only when the section has an item */
  lead = '',
): Filled {
  const headingTokens = tokenizer.count(`${sectionHeading(name)}${lead}\n`);
  const filled: Filled = {
    section: { name, budget, used: 0, items: [] },
    rendered: [],
    placement: [],
    ...(lead ? { lead } : {}),
  };
  const groups = new Set<string>();
  let left = budget - headingTokens;
  for (const candidate of candidates) {
    if (left < MIN_CUT_TOKENS) break;
    // Nothing to say (a template's empty headings, a note of comments only): no item.
    if (candidate.text === '' || isTaken(candidate, taken)) continue;
    // Only entries (items with a group line) are compared: notes are whole and distinct.
    const entry = said && candidate.group !== undefined;
    if (entry && said.repeats(candidate.text)) continue;
    let text = candidate.text;
    let rendered = candidate.render(text);
    // The first item of a group pays for the group's line.
    const group = candidate.group;
    const groupTokens = group && !groups.has(group) ? tokenizer.count(group) : 0;
    let tokens = tokenizer.count(rendered) + groupTokens;
    let cut = false;
    if (tokens > left) {
      const room = left - groupTokens - tokenizer.count(candidate.render(''));
      if (room < MIN_CUT_TOKENS) continue;
      // Counted as rendered, whole: quoting adds a `> ` to every line the cut keeps.
      const shortened = cutToTokens(text, left - groupTokens, (s) => tokenizer.count(candidate.render(s)));
      if (shortened.text === '') continue;
      text = shortened.text;
      rendered = candidate.render(text);
      tokens = tokenizer.count(rendered) + groupTokens;
      if (tokens > left) continue;
      cut = true;
    }
    take(candidate, taken);
    if (entry) said.add(candidate.text);
    if (group) groups.add(group);
    filled.placement.push({ ...(group ? { group } : {}), position: candidate.position ?? 0 });
    left -= tokens;
    filled.section.used += tokens;
    filled.rendered.push(rendered);
    const { path, anchor, title, score, reason } = candidate;
    filled.section.items.push({ path, anchor, title, text, tokens, score, reason, cut });
  }
  if (filled.section.items.length > 0) filled.section.used += headingTokens;
  return filled;
}

/**
 * The section's Markdown: items in their order, except that the items of one group come together
 * under its line, at the place of the group's first item, in the order they have in their note.
 */
function renderSection(f: Filled): string {
  const blocks: Array<{ line?: string; items: Array<{ text: string; position: number }> }> = [];
  const byGroup = new Map<string, (typeof blocks)[number]>();
  f.rendered.forEach((text, i) => {
    const { group, position = 0 } = f.placement[i] ?? {};
    const item = { text, position };
    const block = group ? byGroup.get(group) : undefined;
    if (block) block.items.push(item);
    else {
      const fresh = { ...(group ? { line: group } : {}), items: [item] };
      blocks.push(fresh);
      if (group) byGroup.set(group, fresh);
    }
  });
  return blocks
    .map(
      (b) =>
        (b.line ?? '') +
        b.items
          .sort((x, y) => x.position - y.position)
          .map((x) => x.text)
          .join(''),
    )
    .join('');
}

export function assemble(filled: Filled[]): string {
  return filled
    .filter((f) => f.rendered.length > 0)
    .map((f) => sectionHeading(f.section.name) + (f.lead ?? '') + renderSection(f))
    .join('\n');
}
