// The knowledge-update benchmark: a diary in which facts change over months (where the writer
// lives, works, what she studies …), asked about in English and Chinese. Does a 600-token compile
// hold the latest version, and does it come before the stale ones? Generated, seeded, no LLM.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openVault } from '../dist/index.js';
import { makeRandom } from './prng.mjs';
import { EN_NOUNS, EN_VERBS, ZH_WORDS } from './word-lists.mjs';

export const KU_BUDGET = 600;
/** The turn's moment: two months after the last version of every fact. */
const NOW = new Date('2026-12-20T10:00:00Z');
/** When the three versions of each fact were written (month, day); the last is the current one. */
const WHEN = [
  [3, 4],
  [6, 17],
  [10, 9],
];

/**
 * Each fact: three versions as the diary says them (worded differently, as people do), and the
 * questions that ask about it, with and without a word that asks about the present.
 */
const FACTS = [
  {
    versions: [
      'I live in Hangzhou now, a small flat by the lake.',
      'Moved last weekend: I live in Suzhou these days, near the old town.',
      'Settled in Shanghai, I live in Xuhui now with the cat.',
    ],
    questions: ['Where do I live?', 'Where do I live now?'],
  },
  {
    versions: [
      'First week at Acme: I work on their billing system.',
      'I work at Birch Labs since Monday, on the data platform.',
      'New job: I work at Cobalt now, leading the infra team.',
    ],
    questions: ['Where do I work?', 'Where am I working these days?'],
  },
  {
    versions: [
      'My commute: I take the bus to work, 40 minutes each way.',
      'I ride my bike to work now, the bus was too slow.',
      'I take the metro to work now, line 11, 25 minutes.',
    ],
    questions: ['How do I get to work?', 'How do I commute to work currently?'],
  },
  {
    versions: [
      'Signed up for guitar lessons, I am learning guitar on Tuesdays.',
      'Dropped guitar; I am learning piano instead, with a teacher on Saturdays.',
      'I am learning Japanese now, an hour every evening.',
    ],
    questions: ['What am I learning?', 'What am I still learning?'],
  },
  {
    versions: [
      '我住在杭州，房子在西湖边上。',
      '搬家了，我现在住在苏州，离老城区很近。',
      '我住在上海了，在徐汇，离河边不远。',
    ],
    questions: ['我住在哪里？', '我现在住在哪里？'],
  },
  {
    versions: [
      '我每天早上跑步，五公里。',
      '膝盖不舒服，我改成每天游泳了。',
      '最近我每天练瑜伽，跑步和游泳都停了。',
    ],
    questions: ['我每天做什么运动？', '我目前每天做什么运动？'],
  },
  {
    versions: [
      '我的手机是小米，用了三年了。',
      '换了新手机，我的手机现在是华为。',
      '我的手机换成了 iPhone，屏幕大很多。',
    ],
    questions: ['我的手机是什么牌子？', '我的手机现在是什么牌子？'],
  },
  {
    versions: [
      '我在学做川菜，每周做两次。',
      '我在学做粤菜了，先从煲汤开始。',
      '我在学做日料，寿司还捏不好。',
    ],
    questions: ['我在学做什么菜？', '我最近在学做什么菜？'],
  },
];

const pad = (n) => String(n).padStart(2, '0');

/** A diary from February to November: four chatty entries a day, and the facts on their days. */
export async function writeDiary(root) {
  const random = makeRandom(77);
  const days = new Map();
  /** @type {Array<Array<{ path: string, anchor: string }>>} */
  const facts = FACTS.map(() => []);
  const start = Date.UTC(2026, 1, 1);
  for (let t = start; t <= Date.UTC(2026, 10, 30); t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    const lines = [];
    for (let i = 0; i < 4; i++) {
      const text = random.chance(0.5)
        ? `${random.pick(EN_VERBS)} the ${random.pick(EN_NOUNS)} and the ${random.pick(EN_NOUNS)} today`
        : `今天${random.pick(ZH_WORDS)}，然后${random.pick(ZH_WORDS)}和${random.pick(ZH_WORDS)}`;
      lines.push({ time: `${pad(9 + i * 3)}:00`, text });
    }
    days.set(date, lines);
  }
  FACTS.forEach((fact, f) => {
    fact.versions.forEach((text, v) => {
      const [month, day] = /** @type {[number, number]} */ (WHEN[v]);
      // Facts of one version a day apart, so each has a day of its own.
      const date = `2026-${pad(month)}-${pad(day + f)}`;
      days.get(date)?.push({ time: '20:00', text, fact: f, version: v });
    });
  });
  await mkdir(join(root, 'episodes', 'daily'), { recursive: true });
  await writeFile(
    join(root, 'mem.config.json'),
    `${JSON.stringify({ timezone: 'UTC', git: { autoCommit: false } })}\n`,
  );
  for (const [date, lines] of days) {
    const body = lines
      .sort((a, b) => (a.time < b.time ? -1 : 1))
      .map((line, i) => {
        const versions = line.fact === undefined ? undefined : facts[line.fact];
        if (versions && line.version !== undefined)
          versions[line.version] = { path: `episodes/daily/${date}.md`, anchor: `^e${i + 1}` };
        return `- ${line.time} **Rain:** ${line.text} ^e${i + 1}`;
      });
    await writeFile(
      join(root, 'episodes', 'daily', `${date}.md`),
      `---\ndate: ${date}\n---\n# ${date}\n\n${body.join('\n')}\n`,
    );
  }
  return facts;
}

/** Where each version shows in the compiled Markdown (its block id under its day), or -1. */
function positionIn(markdown, { path, anchor }) {
  const day = path.slice(path.lastIndexOf('/') + 1, -3);
  const at = markdown.indexOf(`[[${day}]]`);
  if (at < 0) return -1;
  // `- ^e3 Speaker:`, or `- ^e3` alone for an entry with no speaker; the words are quoted below.
  const found = [`- ${anchor} `, `- ${anchor}\n`]
    .map((line) => markdown.indexOf(line, at))
    .filter((i) => i >= 0);
  return found.length > 0 ? Math.min(...found) : -1;
}

export async function benchKnowledgeUpdate({ log }) {
  const root = await mkdtemp(join(tmpdir(), 'memvault-ku-'));
  try {
    const facts = await writeDiary(root);
    const vault = await openVault({ path: root, cache: false });
    const rows = [];
    FACTS.forEach((fact, f) => {
      for (const question of fact.questions) {
        const compiled = vault.compile({ message: question, budget: KU_BUDGET, now: NOW });
        const [latest = -1, ...stale] = [...(facts[f] ?? [])]
          .reverse()
          .map((v) => positionIn(compiled.markdown, v));
        rows.push({
          question,
          language: /[\u4e00-\u9fff]/.test(question) ? 'zh' : 'en',
          present: latest >= 0,
          latestFirst: latest >= 0 && stale.every((p) => p < 0 || p > latest),
          staleShown: stale.filter((p) => p >= 0).length,
        });
      }
    });
    const share = (list, key) => Math.round((list.filter((r) => r[key]).length / list.length) * 1000) / 1000;
    const result = {
      budget: KU_BUDGET,
      facts: FACTS.length,
      questions: rows.length,
      latestPresent: share(rows, 'present'),
      latestFirst: share(rows, 'latestFirst'),
      byLanguage: Object.fromEntries(
        ['en', 'zh'].map((lang) => {
          const list = rows.filter((r) => r.language === lang);
          return [
            lang,
            {
              n: list.length,
              latestPresent: share(list, 'present'),
              latestFirst: share(list, 'latestFirst'),
            },
          ];
        }),
      ),
      misses: rows.filter((r) => !r.latestFirst).map((r) => r.question),
    };
    log(
      `  knowledge update: latest present ${result.latestPresent}, latest first ${result.latestFirst} (${rows.length} questions)`,
    );
    return result;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
