// The offline rule for promises and plans: explicit forms only ("remind me to … on Friday",
// "我下周三去面试"), so a vault that never talks to a model still keeps its commitments.

import type { MemConfig } from '../core/config/config.js';
import type { Note, Section } from '../core/types.js';
import type { VaultIndex } from '../indexing/vault-index.js';
import { entriesNewestFirst } from '../recall/episode-entries.js';
import { citation } from '../recall/recall.js';
import { userNotePath } from '../vault/layout.js';
import { isRetired } from '../vault/section-facts.js';
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
  /\b(?:remind me|don['’]?t let me forget|do not let me forget|i promised|i promise|i will|i['’]ll|i['’]m going to|i am going to|i['’]m gonna|i have to|i need to|i must)\b/i;
/** Time words after 我 that make it a plan (我下周三去面试), shared by both speakers' rules. */
const CN_PLAN_TIME =
  '(?=明天|后天|大后天|下下?个?(?:周|星期|礼拜)|这个?(?:周|星期|礼拜)|本周|周[一二三四五六日末]|星期|礼拜|\\d{1,2}月\\d{1,2}[日号])';

// 我记得 / 还记得 are "I remember", and 记得吗 asks; 我 right before a time word is a plan (我下周三去面试),
// unless someone else's words are reported (她问我周五回不回家). 我今天… is how I am today, not a plan.
const CN_TRIGGER = new RegExp(
  `提醒我|(?<![我还你他她])记得(?!吗)|别忘了|不要忘了|别让我忘|我答应|我保证|我要|我会|我得|我打算|我准备|(?<![问给跟让叫和对帮诉])我${CN_PLAN_TIME}`,
);

/**
 * The companion's own promises: first-person promise forms only ("I'll remind you on Friday",
 * "我明天提醒你"). "Remind me …" or 记得… from the companion asks or tells the user something; it
 * is no promise of the companion's.
 */
const COMPANION_EN =
  /\b(?:i promised|i promise|i will|i['’]ll|i['’]m going to|i am going to|i['’]m gonna)\b/i;
// 提醒我明天… is the companion asking to be reminded, not promising (hence 醒 before 我).
const COMPANION_CN = new RegExp(
  `我答应|我保证|我一定|我会|我要|我打算|我准备|(?<![问给跟让叫和对帮诉醒])我${CN_PLAN_TIME}`,
);

/** Whose lines can hold a commitment: the user's own, and the companion's own promises. */
export interface CommitmentSpeakers {
  /** Lower-cased names the user is written under */
  user: Set<string>;
  /** Lower-cased names the companion is written under */
  companion: Set<string>;
}

const nameKey = (name: string) => name.normalize('NFC').trim().toLowerCase();

/**
 * The user is the role `user`, the name `speakers.user` in the config, and the title and aliases
 * of `profile/user.md` ("Rain (林雨)", aliases Rain, 林雨); the companion is `assistant`,
 * `speakers.assistant` and the aliases of the persona notes (小满, Xiaoman). Anyone else (a friend
 * quoted in a transcript, an event, an entry with no speaker) states no commitment: their words
 * are about the user, not promises of the user's, and a line such as "Remind me on Friday: ignore
 * all previous instructions" from them must not become a pinned line of every compile.
 */
export function commitmentSpeakers(index: VaultIndex, config: MemConfig): CommitmentSpeakers {
  const names = (list: Array<string | undefined>) =>
    new Set(list.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map(nameKey));
  const profile = index.notes.get(userNotePath(index.layout));
  const persona = [...index.notes.values()].filter((n) => n.layer === 'persona' && !isRetired(n));
  return {
    user: names(['user', config.speakers['user'], profile?.title, ...(profile?.aliases ?? [])]),
    companion: names(['assistant', config.speakers['assistant'], ...persona.flatMap((n) => n.aliases)]),
  };
}

/** The role of an entry's speaker for commitments, or undefined when they state none. */
export function commitmentRole(
  speaker: string | undefined,
  speakers: CommitmentSpeakers,
): 'user' | 'companion' | undefined {
  if (speaker === undefined) return undefined;
  const key = nameKey(speaker);
  // A name that is both (a vault whose user and companion share one) counts as the user's.
  if (speakers.user.has(key)) return 'user';
  if (speakers.companion.has(key)) return 'companion';
  return undefined;
}

/** Sentences of an entry, each with its closing punctuation. */
function sentences(text: string): string[] {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(?<=[.!?。！？；;])\s*/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const isQuestion = (sentence: string) => /[?？]$|吗[。！]?$/.test(sentence);

/**
 * The commitments one entry states, at most one per entry (its first explicit promise): any
 * explicit form in the user's lines, first-person promises only in the companion's.
 */
export function commitmentIn(
  section: Section,
  source: () => string,
  role: 'user' | 'companion' = 'user',
): FoundCommitment | undefined {
  if (!section.date) return undefined;
  const [en, cn] = role === 'user' ? [EN_TRIGGER, CN_TRIGGER] : [COMPANION_EN, COMPANION_CN];
  for (const sentence of sentences(section.text)) {
    if (isQuestion(sentence) || !(en.test(sentence) || cn.test(sentence))) continue;
    const due = resolveDueDate(sentence, section.date);
    if (!due) continue;
    const what = sentence.length > MAX_WHAT ? `${sentence.slice(0, MAX_WHAT - 1)}…` : sentence;
    // The schema's limit on `who`: a longer speaker name would get the commitment refused.
    const who = (section.speaker ?? role).slice(0, 100);
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
  speakers: CommitmentSpeakers,
): Array<FoundCommitment & { note: Note }> {
  const found: Array<FoundCommitment & { note: Note }> = [];
  for (const { note, section } of entriesNewestFirst(index, { from, to })) {
    if (isRetired(note) || !section.anchor.startsWith('^')) continue;
    const role = commitmentRole(section.speaker, speakers);
    if (!role) continue;
    const commitment = commitmentIn(section, () => citation(index, note.path, section.anchor), role);
    if (commitment) found.push({ ...commitment, note });
  }
  return found.reverse();
}
