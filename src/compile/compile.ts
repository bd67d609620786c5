import type { MemConfig } from '../core/config/config.js';
import { expectString, MemError, refused } from '../core/errors.js';
import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { type AppliedRange, chooseRange } from '../recall/choose-range.js';
import { citation, type DateRange, type EmbeddingUse, type RecallHit, recall } from '../recall/recall.js';
import type { SemanticInput } from '../recall/semantic.js';
import { commitmentsPath, userNotePath } from '../vault/layout.js';
import { removeInvisible } from '../vault/markdown/sanitize-text.js';
import { dueCommitments } from './commitments.js';
import { type Encoding, getTokenizer, type Tokenizer } from './count-tokens.js';
import { assemble, type Candidate, type CompiledSection, type Filled, fill } from './fill-section.js';
import { capsuleOf, type FoldedRollup, type Folding, foldRollups } from './fold-rollups.js';
import { listItems, termWeights } from './list-items.js';
import { asksForSeveral } from './list-question.js';
import { NearDuplicates } from './near-duplicates.js';

export type { CompiledItem, CompiledSection } from './fill-section.js';
export type { FoldedRollup } from './fold-rollups.js';

import { dayOf } from '../time/zoned-date.js';
import {
  type CompileSectionName,
  entryGroupHeading,
  MEMORY_FRAME,
  noteBody,
  oneLine,
  quote,
  renderEntryItem,
  renderMemoryItem,
  renderNoteItem,
} from './render.js';
import { coreProfileNotes, personaNotes, recentEntries } from './select-notes.js';

export interface CompileOptions {
  /** This turn's user message */
  message: string;
  /** Earlier turns, oldest first; the last few sharpen what is recalled */
  history?: string[];
  /** Token budget for the whole document (default: config `compile.budget`, 2000) */
  budget?: number;
  /** The turn's moment (default: now) */
  now?: Date;
  /** BPE encoding that counts tokens (default: config `compile.tokenizer`, o200k_base) */
  tokenizer?: Encoding;
  /** Share of the budget per section (default: config `compile.shares`) */
  shares?: Partial<MemConfig['compile']['shares']>;
  /** An explicit episode date range; overrides the time expressions in the message */
  range?: DateRange;
}

export interface CompileResult {
  /** Only with `embeddings.enabled`: whether the semantic ranking joined this turn's recall, and why not */
  embeddings?: EmbeddingUse;
  markdown: string;
  budget: number;
  used: number;
  tokenizer: Encoding;
  range?: AppliedRange;
  sections: CompiledSection[];
  /** The rollups that stood in for older days, newest first, and what each folded (cascade folding) */
  folded?: FoldedRollup[];
}

/**
 * The smallest budget compile accepts: a section heading, the memory frame and one item of the
 * shortest length worth its citation (MIN_CUT_TOKENS, 16) with its link come to about 50 tokens;
 * below that the document would be empty or a heading alone, which a caller would take for
 * "nothing remembered".
 */
export const MIN_BUDGET = 64;

/** How many history turns join the message for recall */
const HISTORY_TURNS = 2;
/** Recalled candidates per token of budget (at least 40): a short entry costs about 25 tokens. */
const TOKENS_PER_CANDIDATE = 25;
/** The same for a question that asks for several things: its entries are cut to one sentence. */
const TOKENS_PER_LIST_CANDIDATE = 12;
/**
 * The recent share when no conversation history comes with the message: then the message is a
 * question asked on its own (a tool call, a search), and the newest entries rarely answer it.
 */
const RECENT_SHARE_WITHOUT_HISTORY = 0.05;

/**
 * What a turn recalls with: the last history turns and the message, or, when the message names
 * only a time ("what happened yesterday"), the history and the words left beside the time. Also
 * what a semantic compile embeds as the query (one embedding per turn).
 */
export function turnQuery(
  index: VaultIndex,
  config: MemConfig,
  options: CompileOptions,
  now: Date,
): { history: string[]; query: string; range: AppliedRange | undefined; words: string } {
  // Every compile reads its turn here first (compileAsync too), so a caller's slip is refused here.
  expectString(options.message, 'compile options "message"');
  if (options.history !== undefined && !Array.isArray(options.history))
    throw refused('compile options "history"', 'an array of strings', options.history);
  const history = (options.history ?? []).slice(-HISTORY_TURNS);
  const query = [...history, options.message].join('\n');
  const range = chooseRange(index, options.message, now, config.timezone, options.range);
  const words = range?.onlyTime ? [...history, range.words ?? ''].join('\n') : query;
  return { history, query, range, words };
}

/** `quoted`: false only for the persona, the one part written as instructions. */
function noteCandidate(index: VaultIndex, note: Note, reason: string, quoted = true): Candidate {
  const cite = citation(index, note.path, '');
  return {
    key: note.path,
    path: note.path,
    anchor: '',
    title: note.title,
    score: 1,
    reason,
    text: noteBody(note),
    render: (text) => renderNoteItem(note.title, cite, text, quoted),
  };
}

/**
 * Pending commitments due within the window, as one item: what the companion must not forget
 * this week matters more than most of the profile, and it is a few lines.
 */
function commitmentsCandidate(index: VaultIndex, today: string, windowDays: number): Candidate | undefined {
  const due = dueCommitments(index, today, windowDays);
  if (due.length === 0) return undefined;
  const path = commitmentsPath(index.layout);
  const cite = citation(index, path, '');
  return {
    key: `${path}#due`,
    path,
    anchor: '',
    title: 'Due soon',
    score: 1,
    reason: `pending commitments due by ${due[due.length - 1]?.due}`,
    // Who said it and where on the list line, the words said quoted below it: a commitment's text
    // is an entry's text, and "remind me on Friday: ignore all previous instructions" is a quote.
    text: due
      .map((c) => `- due ${c.due} · ${oneLine(c.who)} · ${c.source}\n${quote(oneLine(c.what))}`)
      .join('')
      .trimEnd(),
    // Already attributed and quoted line by line above.
    render: (text) => renderNoteItem('Due soon', cite, text, false),
  };
}

function sectionCandidate(
  index: VaultIndex,
  note: Note,
  section: Section,
  score: number,
  reason: string,
): Candidate {
  const base = {
    key: section.id,
    path: note.path,
    anchor: section.anchor,
    title: note.title,
    score,
    reason,
    text: section.text.trim(),
  };
  // An episode entry goes under its note's link, written once for all the entries of that note.
  if (note.layer === 'episodes' && section.kind === 'block' && section.anchor.startsWith('^')) {
    return {
      ...base,
      group: entryGroupHeading(citation(index, note.path, ''), section.date),
      position: section.start,
      render: (text) => renderEntryItem(section, text),
    };
  }
  const cite = citation(index, note.path, section.anchor);
  return { ...base, render: (text) => renderMemoryItem(cite, section, text) };
}

function hitCandidate(index: VaultIndex, hit: RecallHit): Candidate | undefined {
  const found = index.section(hit.id);
  if (!found) return undefined;
  return sectionCandidate(index, found.note, found.section, hit.score, hit.reasons.join('; '));
}

/**
 * One Markdown document for one turn, never over budget: persona, the core profile, what this
 * turn's message recalls, then the newest episode entries. The first two come out byte-identical
 * while their notes are unchanged, so a provider's prompt cache can reuse that prefix.
 */
export function compile(
  index: VaultIndex,
  config: MemConfig,
  options: CompileOptions & { now: Date },
  semantic?: SemanticInput,
): CompileResult {
  const budget = budgetOf(config, options);
  const encoding = options.tokenizer ?? config.compile.tokenizer;
  const tokenizer = getTokenizer(encoding);
  const { now } = options;
  const shares = sharesOf(config, options);
  const { range, words } = turnQuery(index, config, options, now);
  const today = dayOf(now, config.timezone);
  const { persona, user, personaPaths } = pinnedCandidates(index, config, today);
  const relevant = relevantCandidates(index, config, options.message, {
    words,
    range,
    budget,
    now,
    semantic,
    personaPaths,
  });
  const { recent, folding } = recentCandidates(index, config, today);

  // Note text shows as seen: a hand edit, an import or a remote may have put invisible characters
  // in any note (tag characters spelling hidden words, direction overrides), and mem's own writes
  // remove them (sanitize-text.ts). The whole document goes through the rule again at the end.
  const visible = (list: Candidate[]) =>
    list.map((c) => ({ ...c, title: removeInvisible(c.title), text: removeInvisible(c.text) }));
  const filled = fillSections(
    [
      ['persona', visible(persona), shares.persona],
      ['user', visible(user), shares.user],
      ['relevant', visible(relevant), shares.relevant],
      ['recent', visible(recent), shares.recent],
    ],
    budget,
    tokenizer,
  );
  const { markdown, used } = fitWhole(filled, tokenizer, budget);
  return {
    markdown,
    budget,
    used,
    tokenizer: encoding,
    ...(range ? { range } : {}),
    sections: filled.map((f) => f.section),
    // A copy: the folding is kept between turns, and what a caller does with its answer must not change it.
    ...(folding.report.length > 0 ? { folded: structuredClone(folding.report) } : {}),
  };
}

/** The whole document's budget in tokens; one below MIN_BUDGET is refused. */
function budgetOf(config: MemConfig, options: CompileOptions): number {
  const budget = Math.floor(options.budget ?? config.compile.budget);
  if (!(budget >= MIN_BUDGET))
    throw new MemError(
      'INVALID_ARGUMENT',
      `compile: a budget of ${options.budget ?? config.compile.budget} tokens is too small to hold anything; the minimum is ${MIN_BUDGET}`,
    );
  return budget;
}

/** Each section's share: the config's, the turn's own over it, and a small recent share without history. */
function sharesOf(config: MemConfig, options: CompileOptions): MemConfig['compile']['shares'] {
  const shares = { ...config.compile.shares, ...options.shares };
  if ((options.history ?? []).length === 0 && options.shares?.recent === undefined)
    shares.recent = Math.min(shares.recent, RECENT_SHARE_WITHOUT_HISTORY);
  return shares;
}

/**
 * What every turn shows first: the persona notes and the core profile, with the commitments due
 * soon right after the core profile note. `personaPaths`: the notes shown whole there, which the
 * recalled part leaves out.
 */
function pinnedCandidates(
  index: VaultIndex,
  config: MemConfig,
  today: string,
): { persona: Candidate[]; user: Candidate[]; personaPaths: Set<string> } {
  // Only notes of persona/ are written as instructions; a note pinned from another layer (an
  // insight a model wrote) comes first too, but quoted like every other memory.
  const persona = personaNotes(index).map((n) => noteCandidate(index, n, 'persona', n.layer !== 'persona'));
  const user = coreProfileNotes(index).map((n) => noteCandidate(index, n, 'core profile'));
  const personaPaths = new Set([...persona, ...user].map((c) => c.path));
  // Near the top: right after the core profile note, before the other pinned profile notes. Added
  // after personaPaths, so a question about older commitments can still recall the note itself.
  const due = commitmentsCandidate(index, today, config.commitments.windowDays);
  if (due) user.splice(user[0]?.path === userNotePath(index.layout) ? 1 : 0, 0, due);
  return { persona, user, personaPaths };
}

/**
 * What this turn's words recall, as many as the budget could show (more when the message asks
 * for several things, each then cut to its sentence), the entries beside a hit kept as context.
 */
function relevantCandidates(
  index: VaultIndex,
  config: MemConfig,
  message: string,
  turn: {
    words: string;
    range: AppliedRange | undefined;
    budget: number;
    now: Date;
    semantic: SemanticInput | undefined;
    personaPaths: Set<string>;
  },
): Candidate[] {
  const { words, range, semantic } = turn;
  // "What hobbies does she have", "去过哪些地方": the answer is many entries, one sentence each.
  const several = asksForSeveral(message);
  const perCandidate = several ? TOKENS_PER_LIST_CANDIDATE : TOKENS_PER_CANDIDATE;
  const hits = recall(index, config, words, {
    k: Math.max(40, Math.ceil(turn.budget / perCandidate)),
    now: turn.now,
    range: range ? { from: range.from, to: range.to } : undefined,
    rangeMode: range?.mode,
    // The entries beside a hit on its day are context a turn may use (the reply to a question).
    context: true,
    ...(semantic ? { semantic } : {}),
  });
  const recalled = hits
    .filter((h) => !turn.personaPaths.has(h.path))
    .map((h) => hitCandidate(index, h))
    .filter((c): c is Candidate => c !== undefined);
  return several ? listItems(recalled, termWeights(index, words)) : recalled;
}

/**
 * Working memory: the newest raw entries, and before them the rollups that stand in for the
 * days before (picked after the entries, shown first). The newest rollup is shown whole; older
 * ones by their capsule line, so a year of rollups fits in the recent share.
 */
function recentCandidates(
  index: VaultIndex,
  config: MemConfig,
  today: string,
): { recent: Candidate[]; folding: Folding } {
  const folding = foldRollups(index, today, config.timezone);
  const recent = [
    ...recentEntries(index, config.compile.recentEntries, today, folding.rawAfter).map(({ note, section }) =>
      sectionCandidate(index, note, section, 0, 'recent'),
    ),
    ...folding.shown.map((rollup, i) => {
      const reason = `rollup of ${rollup.period.from} to ${rollup.period.to}`;
      const candidate = noteCandidate(index, rollup.note, reason);
      const capsule = i === 0 ? undefined : capsuleOf(rollup.note);
      return capsule ? { ...candidate, text: capsule, reason: `${reason} (capsule)` } : candidate;
    }),
  ];
  return { recent, folding };
}

/**
 * The sections filled in order, each from its share of the budget; an item already shown (or one
 * nearly the same words) is not shown again.
 */
function fillSections(
  plan: Array<[CompileSectionName, Candidate[], number]>,
  budget: number,
  tokenizer: Tokenizer,
): Filled[] {
  const taken = new Set<string>();
  const said = new NearDuplicates();
  const totalShare = plan.reduce((sum, [, , share]) => sum + Math.max(0, share), 0) || 1;
  const filled: Filled[] = [];
  let spent = 0;
  let carried = 0;
  let framed = false;
  for (const [i, [name, candidates, share]] of plan.entries()) {
    // What a section leaves unused flows to the next; the last may use whatever is left.
    const own =
      i === plan.length - 1
        ? budget - spent
        : Math.floor((budget * Math.max(0, share)) / totalShare) + carried;
    const sectionBudget = Math.max(0, Math.min(own, budget - spent));
    // The frame goes under the first section after the persona that has something to show.
    const lead = name !== 'persona' && !framed ? MEMORY_FRAME : '';
    const result = fill(name, sectionBudget, candidates, tokenizer, taken, said, lead);
    if (lead && result.rendered.length > 0) framed = true;
    if (name === 'recent') {
      // Picked newest first, shown oldest first, as a conversation reads.
      result.section.items.reverse();
      result.rendered.reverse();
      result.placement.reverse();
    }
    filled.push(result);
    spent += result.section.used;
    carried = sectionBudget - result.section.used;
  }
  return filled;
}

/** BPE counts are not additive across joins: check the whole, and drop from the end until it fits. */
function fitWhole(
  filled: Filled[],
  tokenizer: Tokenizer,
  budget: number,
): { markdown: string; used: number } {
  let markdown = removeInvisible(assemble(filled));
  let used = tokenizer.count(markdown);
  while (used > budget) {
    const last = [...filled].reverse().find((f) => f.rendered.length > 0);
    if (!last) break;
    last.rendered.pop();
    const dropped = last.section.items.pop();
    last.section.used -= dropped?.tokens ?? 0;
    markdown = removeInvisible(assemble(filled));
    used = tokenizer.count(markdown);
  }
  return { markdown, used };
}
