// How compile answers a question that asks for several things (list-question.ts): the items of
// such an answer are scattered over many entries and days, so the budget buys more of them, each
// shortened to the sentence that matches, and one day's entries do not crowd out the others.

import { processTerm, tokenize } from '../indexing/text/tokenize.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { readSpeakers } from '../recall/speaker-prior.js';
import { sentenceSpans } from './cut-text.js';
import type { Candidate } from './fill-section.js';

/** Marks where words of an entry were left out. */
const GAP = '…';
/** A day's best entry goes first when it scores at least this share of the best candidate. */
const DAY_LEADER = 0.1;
/**
 * A sentence shorter than this takes the next one along: "Yes!" says nothing alone. In characters,
 * a Chinese or Japanese one counting three (about as much as a short English word says).
 */
const SHORT_SENTENCE = 40;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/gu;
const lengthOf = (text: string) => text.length + 2 * (text.match(CJK)?.length ?? 0);

/**
 * The query's indexed terms, each weighted by how rare it is in the vault (its idf). A speaker's
 * name is left out as recall leaves it out: "Thanks, Melanie!" is not what a question about
 * Melanie asks for.
 */
export function termWeights(index: VaultIndex, query: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const token of tokenize(readSpeakers(index, query).text)) {
    const term = processTerm(token);
    if (!term || weights.has(term)) continue;
    if (index.text.documentFrequency(term) > 0) weights.set(term, index.text.plainIdf(term));
  }
  return weights;
}

function weightOf(text: string, weights: ReadonlyMap<string, number>): number {
  let sum = 0;
  const seen = new Set<string>();
  for (const token of tokenize(text)) {
    const term = processTerm(token);
    if (!term || seen.has(term)) continue;
    seen.add(term);
    sum += weights.get(term) ?? 0;
  }
  return sum;
}

/**
 * The sentence of `text` that holds most of the query's weight (the first when none does), with
 * the next one when it is very short, and `…` where words were left out. A text of one sentence
 * is returned as it is.
 */
export function matchingSentence(text: string, weights: ReadonlyMap<string, number>): string {
  const spans = sentenceSpans(text);
  if (spans.length <= 1) return text;
  let best = 0;
  let bestWeight = 0;
  spans.forEach(([start, end], i) => {
    const weight = weightOf(text.slice(start, end), weights);
    if (weight > bestWeight) {
      best = i;
      bestWeight = weight;
    }
  });
  const [start] = spans[best] as [number, number];
  let end = (spans[best] as [number, number])[1];
  if (lengthOf(text.slice(start, end)) < SHORT_SENTENCE && best + 1 < spans.length)
    end = (spans[best + 1] as [number, number])[1];
  const before = start > 0 ? `${GAP} ` : '';
  const after = end < text.trimEnd().length ? ` ${GAP}` : '';
  return `${before}${text.slice(start, end).trim()}${after}`;
}

/**
 * The recalled candidates for a question that asks for several things: entries shortened to
 * their matching sentence (notes are left whole: they are not one thing each), and each day's best
 * entry first, when it scores at least DAY_LEADER of the best, so that the other days of a list
 * are not left out for the second and third entry of one day. Measured on LoCoMo: decaying every
 * further entry of a day instead cost more than it gained (the reply beside a match is often the
 * answer), as did keeping unmatched entries whole.
 */
export function listItems(candidates: Candidate[], weights: ReadonlyMap<string, number>): Candidate[] {
  const floor = DAY_LEADER * (candidates[0]?.score ?? 0);
  const days = new Set<string>();
  const leaders: Candidate[] = [];
  const rest: Candidate[] = [];
  for (const candidate of candidates) {
    if (candidate.group === undefined) {
      rest.push(candidate);
      continue;
    }
    const group = candidate.group;
    const item = { ...candidate, text: matchingSentence(candidate.text, weights) };
    if (!days.has(group) && item.score >= floor) {
      days.add(group);
      leaders.push(item);
    } else rest.push(item);
  }
  return [...leaders, ...rest];
}
