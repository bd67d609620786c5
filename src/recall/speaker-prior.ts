import type { Note } from '../core/types.js';
import { processTerm, tokenize } from '../indexing/text/tokenize.js';
import { declareTally, sectionKeys } from '../indexing/trackers.js';
import type { VaultIndex } from '../indexing/vault-index.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SPACED = /^[\p{L}\p{M}\p{N}\s'’.-]+$/u;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;

/** Score factor for an entry said by a speaker the query names. */
export const SPEAKER_PRIOR = 1.6;

/** The speakers of a note's episode entries, lower-cased. */
function* speakersOf(note: Note): Iterable<string> {
  if (note.layer !== 'episodes') return;
  for (const section of note.sections) {
    const name = section.speaker?.trim();
    if (name) yield name.toLowerCase();
  }
}
// Declared so that a save keeps it and an open restores it instead of scanning every note.
declareTally('speakers', sectionKeys(speakersOf));

/**
 * Every speaker of an episode entry, longest name first (so `Mei Lin` is read before `Mei`): kept
 * until a speaker is new or gone, not rebuilt from every entry after each write.
 */
function knownSpeakers(index: VaultIndex): Array<{ name: string; pattern: RegExp }> {
  const tally = index.tally('speakers', speakersOf);
  return index.viewOf('recall:speakers', tally, () => {
    return [...tally.keys.keys()]
      .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
      .map((name) => ({
        name,
        // Names of spaced scripts match as whole words (with a possessive `'s`); CJK names anywhere.
        pattern:
          SPACED.test(name) && !CJK.test(name)
            ? new RegExp(
                `(?<![\\p{L}\\p{M}\\p{N}])${escapeRegExp(name)}(?:['’]s)?(?![\\p{L}\\p{M}\\p{N}])`,
                'giu',
              )
            : new RegExp(escapeRegExp(name), 'gi'),
      }));
  });
}

/**
 * A query that names a known speaker ("What did Caroline research?") is asking about what that
 * person said, not for every entry whose text or speaker field holds the name: half of a two-person
 * conversation. The names become a prior on their speakers' entries and leave the text query.
 * A query that is nothing but a name keeps it as text.
 */
export function readSpeakers(index: VaultIndex, query: string): { text: string; speakers: Set<string> } {
  const speakers = new Set<string>();
  let text = query;
  for (const { name, pattern } of knownSpeakers(index)) {
    const next = text.replace(pattern, ' ');
    if (next !== text) {
      speakers.add(name);
      text = next;
    }
  }
  if (speakers.size === 0) return { text: query, speakers };
  // Nothing but the name and stop words left ("What did Caroline say?"): the name stays a word too.
  const words = tokenize(text).some((term) => processTerm(term) !== null);
  return { text: words ? text : query, speakers };
}
