// The offline rule for promises and plans: explicit forms only ("remind me to … on Friday",
// "我下周三去面试"), so a vault that never talks to a model still keeps its commitments.

import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { entriesNewestFirst } from '../recall/episode-entries.js';
import { isRetired } from '../recall/rank.js';
import { citation } from '../recall/recall.js';
import { resolveDueDate } from './due-date.js';

export interface FoundCommitment {
  due: string;
  who: string;
  /** The sentence that holds the promise, in the entry's words */
  what: string;
  /** `[[2026-11-30#^e3]]` */
  source: string;
  /** The time words the due date came from */
  words: string;
}

/** Longest sentence kept as a commitment's text; past it the line stops being a line. */
const MAX_WHAT = 300;

const EN_TRIGGER =
  /\b(?:remind me|don'?t let me forget|do not let me forget|i promised|i promise|i will|i'll|i'm going to|i am going to|i'm gonna|i have to|i need to|i must)\b/i;
// 我记得 / 还记得 are "I remember", and 记得吗 asks; 我 right before a time word is a plan (我下周三去面试),
// unless someone else's words are reported (她问我周五回不回家). 我今天… is how I am today, not a plan.
const CN_TRIGGER =
  /提醒我|(?<![我还你他她])记得(?!吗)|别忘了|不要忘了|别让我忘|我答应|我保证|我要|我会|我得|我打算|我准备|(?<![问给跟让叫和对帮诉])我(?=明天|后天|大后天|下下?个?(?:周|星期|礼拜)|这个?(?:周|星期|礼拜)|本周|周[一二三四五六日末]|星期|礼拜|\d{1,2}月\d{1,2}[日号])/;

/** Sentences of an entry, each with its closing punctuation. */
function sentences(text: string): string[] {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(?<=[.!?。！？；;])\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const isQuestion = (sentence: string) => /[?？]$|吗[。！]?$/.test(sentence);

/** The commitments one entry states, at most one per entry (its first explicit promise). */
export function commitmentIn(
  section: Section,
  source: () => string,
  defaultWho = 'user',
): FoundCommitment | undefined {
  if (!section.date) return undefined;
  for (const sentence of sentences(section.text)) {
    if (isQuestion(sentence) || !(EN_TRIGGER.test(sentence) || CN_TRIGGER.test(sentence))) continue;
    const due = resolveDueDate(sentence, section.date);
    if (!due) continue;
    const what = sentence.length > MAX_WHAT ? `${sentence.slice(0, MAX_WHAT - 1)}…` : sentence;
    // The schema's limit on `who`: a longer speaker name would get the commitment refused.
    const who = (section.speaker ?? defaultWho).slice(0, 100);
    return { due: due.due, who, what, source: source(), words: due.words };
  }
  return undefined;
}

/**
 * Explicit commitments in the episode entries dated from `from` to `to` (both `YYYY-MM-DD`,
 * inclusive), oldest first. Archived and superseded notes are left out.
 */
export function extractCommitments(
  index: VaultIndex,
  from: string,
  to: string,
): Array<FoundCommitment & { note: Note }> {
  const found: Array<FoundCommitment & { note: Note }> = [];
  for (const { note, section } of entriesNewestFirst(index)) {
    const date = section.date ?? '';
    if (date > to) continue;
    if (date < from) break;
    if (isRetired(note) || !section.anchor.startsWith('^')) continue;
    const commitment = commitmentIn(section, () => citation(index, note.path, section.anchor));
    if (commitment) found.push({ ...commitment, note });
  }
  return found.reverse();
}
