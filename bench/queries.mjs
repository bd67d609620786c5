import { makeRandom } from './prng.mjs';
import { EN_NOUNS, EN_VERBS, TIME_WORDS_EN, TIME_WORDS_ZH, ZH_WORDS } from './word-lists.mjs';

/**
 * Query shapes, in the proportions a companion sees them: keywords in either language, mixed,
 * a person's name, and questions about a time (昨天, last week) with or without a topic.
 * @type {[string, (r: ReturnType<typeof makeRandom>, people: string[]) => string][]}
 */
const SHAPES = [
  ['en', (r) => `${r.pick(EN_NOUNS)} ${r.pick(EN_NOUNS)}${r.chance(0.5) ? ` ${r.pick(EN_VERBS)}` : ''}`],
  ['en', (r) => `when was the last time I ${r.pick(EN_VERBS)} the ${r.pick(EN_NOUNS)}?`],
  ['zh', (r) => `${r.pick(ZH_WORDS)}${r.pick(ZH_WORDS)}`],
  ['zh', (r) => `上次${r.pick(ZH_WORDS)}是什么时候？还有${r.pick(ZH_WORDS)}`],
  ['mixed', (r) => `${r.pick(ZH_WORDS)} ${r.pick(EN_NOUNS)} 怎么样`],
  ['mixed', (r) => `那个 ${r.pick(EN_NOUNS)} 的${r.pick(ZH_WORDS)}计划`],
  ['name', (r, people) => r.pick(people)],
  ['name', (r, people) => `${r.pick(people)} 最近${r.pick(ZH_WORDS)}怎么样`],
  ['name', (r, people) => `what do I know about ${r.pick(people)} and the ${r.pick(EN_NOUNS)}`],
  ['time', (r) => `${r.pick(TIME_WORDS_ZH)}我们聊了什么`],
  ['time', (r) => `what did we talk about ${r.pick(TIME_WORDS_EN)}?`],
  ['time', (r) => `${r.pick(TIME_WORDS_ZH)} ${r.pick(ZH_WORDS)}`],
  ['time', (r) => `${r.pick(EN_NOUNS)} ${r.pick(TIME_WORDS_EN)}`],
];

/** `count` deterministic queries cycling through the shapes; each says its shape. */
export function makeQueries(people, count, seed = 7) {
  const r = makeRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const [shape, make] = /** @type {(typeof SHAPES)[number]} */ (SHAPES[i % SHAPES.length]);
    return { shape, text: make(r, people) };
  });
}

/** Chat messages for compile: a sentence around a query, as a user would write a turn. */
export function makeMessages(people, count, seed = 11) {
  const r = makeRandom(seed);
  const queries = makeQueries(people, count, seed + 1);
  const frames = [
    (q) => `Hey, quick one: ${q}`,
    (q) => `${q}？我有点想不起来了`,
    (q) => `I was thinking about ${q} — any thoughts?`,
    (q) => `帮我回忆一下：${q}`,
    (q) => q,
  ];
  return queries.map((q) => ({ shape: q.shape, text: r.pick(frames)(q.text) }));
}
