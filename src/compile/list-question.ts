// Whether a message asks for several things at once ("what hobbies does she have", "how many
// times", "which cities has he visited", "她养过哪些宠物", "去过几次"): such an answer is spread over
// many entries, often on different days, and each of them matters more than the words around it.
// Read from the grammar of the question in English and Chinese, never from one dataset's wording.
import { IRREGULAR_FORMS } from '../indexing/text/irregular-forms.js';
import { STOP_WORDS } from '../indexing/text/stop-words.js';

/** Asked for a count or a list outright: how many, how often, list, name all, both, which of. */
const COUNT_OR_LIST_EN =
  /\b(?:how\s+many|how\s+often|number\s+of|list|enumerate|name\s+(?:all|every|some|the|a\s+few)|both|each\s+of|which\s+of|all\s+(?:the\s+)?(?:\w+\s+)?(?:things|ways|places|times|kinds|types))\b/i;

/**
 * The present perfect after a question word asks what has happened so far, which is usually more
 * than one thing: "which cities has he visited", "what has she made", "where have they travelled".
 */
const WH = new Set(['what', 'which', 'where', 'who', 'whom']);

/** 哪些 (which ones), 哪几, 几 + a measure word (几次, 几个), 多少, 都…什么 / 什么…都, 列出, 分别. */
const COUNT_OR_LIST_ZH =
  /哪些|哪几|几(?:个|次|种|样|位|只|本|部|家|件|所|座|条|门|项|场|回|遍|趟|首|幅|双|份)|多少|都[^。？?！!]{0,8}什么|什么[^。？?！!]{0,8}都|列出|列举|分别|有几/;

/** The words of an English question, lower-cased, apostrophe forms as tokenize() reads them. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+(?:['’][a-z]+)*/g) ?? []).map((w) => w.replace(/['’]s$/, ''));
}

/** A plural noun by its form: an irregular plural (children, people), or -s on a word that is no stop word. */
function looksPlural(word: string): boolean {
  const base = IRREGULAR_FORMS.get(word);
  if (base !== undefined) return /[^s]s$|ren$|men$|ple$|ice$|eet$|eeth$|ese$|i$|a$/.test(word);
  return word.length > 3 && !STOP_WORDS.has(word) && /[^su']s$/.test(word) && !/(?:ness|ics|ous)$/.test(word);
}

/**
 * "What activities does she…", "Which sports…", "what kinds of music…": a plural noun among the
 * few words after what/which, before the verb (does, has, did …, all stop words) begins the rest.
 */
function pluralAfterWh(list: string[]): boolean {
  for (let i = 0; i < list.length; i++) {
    if (list[i] !== 'what' && list[i] !== 'which') continue;
    for (let j = i + 1; j < Math.min(list.length, i + 5); j++) {
      const word = list[j] as string;
      // A plural noun is followed by the verb (stop words all) or ends the question; a word in -s
      // followed by a name or an object is a verb: "what motivates Joanna", "what helps her".
      const next = list[j + 1];
      if (looksPlural(word) && (next === undefined || STOP_WORDS.has(next))) return true;
      // "what kind of interests", "which of her friends"; "what are her hobbies" (a plural verb)
      if (word === 'of') continue;
      if (word === 'are' || word === 'were') return true;
      if (STOP_WORDS.has(word)) break;
    }
  }
  return false;
}

/** A past participle: -ed, or an irregular one from the stemmer's list (made, seen), been, done. */
function isParticiple(word: string): boolean {
  return (
    (word.length > 4 && word.endsWith('ed')) ||
    IRREGULAR_FORMS.has(word) ||
    word === 'been' ||
    word === 'done'
  );
}

/** has/have, then a participle within the next few words (the subject comes between in a question). */
function asksPerfect(list: string[]): boolean {
  if (!list.some((word) => WH.has(word))) return false;
  return list.some(
    (word, i) => (word === 'has' || word === 'have') && list.slice(i + 1, i + 5).some(isParticiple),
  );
}

/** True when the message asks for several items, or how many there are. */
export function asksForSeveral(message: string): boolean {
  if (COUNT_OR_LIST_ZH.test(message)) return true;
  if (COUNT_OR_LIST_EN.test(message)) return true;
  const list = words(message);
  return pluralAfterWh(list) || asksPerfect(list);
}
