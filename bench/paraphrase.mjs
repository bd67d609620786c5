// The paraphrase benchmark (`npm run bench -- --only paraphrase`, or `node bench/paraphrase.mjs`
// after `npm run build`): questions that share no indexed term with their evidence, in English and
// Chinese (bench/paraphrase-pairs.mjs), inside a synthetic vault of a few hundred distractor
// entries. Each question is compiled at 600 and 2,000 tokens by words only (`compile`) and with
// embeddings (`compileAsync`), and the result says whether the evidence entry is in the document.
//
// The vectors come from a stub on loopback (bench/concept-embed-server.mjs) that knows the pairs:
// it measures that the plumbing carries meaning into the compiled context, NOT the quality of any
// embedding model. With MEM_BENCH_EMBEDDINGS set (bench/bench-embeddings.mjs), the same questions
// run against that real endpoint instead, which does measure the model on these 68 questions.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openVault } from '../dist/index.js';
import { processTerm, tokenize } from '../dist/indexing/text/tokenize.js';
import { benchEmbeddings, describeEmbeddings } from './bench-embeddings.mjs';
import { startConceptServer } from './concept-embed-server.mjs';
import { PAIRS_EN, PAIRS_ZH } from './paraphrase-pairs.mjs';
import { makeRandom } from './prng.mjs';
import { EN_ADJECTIVES, EN_FILLERS, EN_NOUNS, EN_VERBS, ZH_WORDS } from './word-lists.mjs';

export const PARAPHRASE_BUDGETS = [600, 2000];
const DAYS = 45;
const DISTRACTORS_PER_DAY = 8;
const FIRST_DAY = Date.UTC(2026, 9, 1);
const DAY_MS = 86_400_000;
/** The turn's moment: the morning after the last day */
const NOW = new Date(FIRST_DAY + DAYS * DAY_MS + 10 * 3_600_000);
/** Evidence sits in days 3..DAYS-6: never among the newest entries the recent section shows anyway */
const EVIDENCE_DAYS = [3, DAYS - 6];

export const NOT_A_MODEL_MEASURE =
  'With the stub, this measures that memvault carries meaning into the compiled context (plumbing: query embedding, section vectors, rank fusion, compile), not the quality of any embedding model: the stub\u2019s vectors encode the paraphrase pairs.';

const terms = (text) => new Set(tokenize(text).map(processTerm).filter(Boolean));

/** Refuses a pair whose question and evidence share an indexed term: words alone could find it. */
function checkPairs(pairs) {
  for (const [question, evidence] of pairs) {
    const asked = terms(question);
    const shared = [...terms(evidence)].filter((term) => asked.has(term));
    if (shared.length > 0)
      throw new Error(`paraphrase pair shares ${shared.join(', ')}: "${question}" / "${evidence}"`);
  }
}

function distractor(r) {
  if (r.chance(0.45)) {
    let text = '';
    for (let i = r.int(4, 12); i > 0; i--) text += r.pick(ZH_WORDS);
    return `${text}。`;
  }
  const pools = [EN_NOUNS, EN_NOUNS, EN_VERBS, EN_ADJECTIVES, EN_FILLERS];
  const words = Array.from({ length: r.int(6, 18) }, () => r.pick(r.pick(pools)));
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

const dayOf = (i) => new Date(FIRST_DAY + i * DAY_MS).toISOString().slice(0, 10);

/** Writes the vault; returns every question with the path and block id of its evidence. */
async function writeVault(root, embeddings, seed = 7) {
  const r = makeRandom(seed);
  /** @type {Array<{ lang: string, question: string, evidence: string, path: string, anchor: string }>} */
  const questions = [
    ...PAIRS_EN.map(([question, evidence]) => ({ lang: 'en', question, evidence, path: '', anchor: '' })),
    ...PAIRS_ZH.map(([question, evidence]) => ({ lang: 'zh', question, evidence, path: '', anchor: '' })),
  ];
  const byDay = new Map();
  questions.forEach((q, i) => {
    const day = r.int(EVIDENCE_DAYS[0], EVIDENCE_DAYS[1]);
    q.path = `episodes/daily/${dayOf(day)}.md`;
    q.anchor = `^p${i + 1}`;
    byDay.set(day, [...(byDay.get(day) ?? []), q]);
  });
  /** @type {Array<[string, string]>} */
  const files = [
    ['mem.config.json', `${JSON.stringify({ timezone: 'UTC', git: { autoCommit: false }, embeddings })}\n`],
  ];
  let distractors = 0;
  for (let day = 0; day < DAYS; day++) {
    const date = dayOf(day);
    const entries = [];
    for (let i = 1; i <= DISTRACTORS_PER_DAY; i++) {
      entries.push({ text: distractor(r), anchor: `^e${i}`, speaker: r.chance(0.6) ? 'Rain' : '小满' });
      distractors++;
    }
    for (const q of byDay.get(day) ?? [])
      entries.splice(r.int(0, entries.length), 0, { text: q.evidence, anchor: q.anchor, speaker: 'Rain' });
    const lines = entries.map((e, i) => {
      const minutes = 8 * 60 + i * 37;
      const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
      return `- ${hhmm} **${e.speaker}:** ${e.text} ${e.anchor}`;
    });
    files.push([`episodes/daily/${date}.md`, `---\ndate: ${date}\n---\n# ${date}\n\n${lines.join('\n')}\n`]);
  }
  for (const [path, text] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return { questions, distractors };
}

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const mean = (values) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** Whether the compiled document holds the question's evidence entry. */
const holds = (compiled, q) =>
  compiled.sections.some((section) =>
    section.items.some((item) => item.path === q.path && item.anchor === q.anchor),
  );

/**
 * The benchmark; `endpoint` is a real `embeddings` config, else the concept stub is used.
 * @param {{ log?: (line: string) => void, endpoint?: ReturnType<typeof benchEmbeddings> }} [options]
 */
export async function benchParaphrase({ log = () => undefined, endpoint = benchEmbeddings() } = {}) {
  checkPairs([...PAIRS_EN, ...PAIRS_ZH]);
  const stub = endpoint ? undefined : await startConceptServer([...PAIRS_EN, ...PAIRS_ZH]);
  const embeddings = endpoint ?? { enabled: true, baseURL: stub?.baseURL, model: 'paraphrase-concept-stub' };
  const root = await mkdtemp(join(tmpdir(), 'memvault-paraphrase-'));
  try {
    const { questions, distractors } = await writeVault(root, embeddings);
    const vault = await openVault({ path: root, cache: false });
    try {
      const t0 = performance.now();
      const embedded = await vault.embed();
      const embedMs = performance.now() - t0;
      const requestsBefore = stub?.stats.requests ?? 0;
      const rows = [];
      const turnMs = [];
      for (const q of questions) {
        /** @type {{ lang: string, words: number[], meaning: number[] }} */
        const row = { lang: q.lang, words: [], meaning: [] };
        for (const budget of PARAPHRASE_BUDGETS) {
          row.words.push(holds(vault.compile({ message: q.question, budget, now: NOW }), q) ? 1 : 0);
          const t1 = performance.now();
          const compiled = await vault.compileAsync({ message: q.question, budget, now: NOW });
          turnMs.push(performance.now() - t1);
          if (compiled.embeddings?.ranking !== 'fused')
            throw new Error(`embeddings were not used: ${compiled.embeddings?.reason ?? 'off'}`);
          row.meaning.push(holds(compiled, q) ? 1 : 0);
        }
        rows.push(row);
      }
      const present = (lang, key) =>
        Object.fromEntries(
          PARAPHRASE_BUDGETS.map((budget, i) => [
            budget,
            round(mean(rows.filter((row) => row.lang === lang).map((row) => row[key][i]))),
          ]),
        );
      const result = {
        note: endpoint
          ? `Real endpoint (${describeEmbeddings(endpoint)}): the share of paraphrased evidence its vectors bring into the compiled context.`
          : NOT_A_MODEL_MEASURE,
        embeddings: endpoint ? describeEmbeddings(endpoint) : 'stub (bench/concept-embed-server.mjs)',
        fusion: `${vault.config.embeddings.fusion} k=${vault.config.embeddings.rrfK}`,
        vault: { distractors, evidence: questions.length, sections: embedded.sections },
        questions: { en: PAIRS_EN.length, zh: PAIRS_ZH.length },
        budgets: PARAPHRASE_BUDGETS,
        evidencePresent: {
          en: { words: present('en', 'words'), wordsAndMeaning: present('en', 'meaning') },
          zh: { words: present('zh', 'words'), wordsAndMeaning: present('zh', 'meaning') },
        },
        embedAllMs: round(embedMs, 1),
        compileWithEmbeddingsMs: round(mean(turnMs), 2),
        ...(stub
          ? { requestsPerTurn: round((stub.stats.requests - requestsBefore) / turnMs.length, 3) }
          : {}),
      };
      for (const lang of ['en', 'zh'])
        log(
          `  paraphrase ${lang}: evidence present at ${PARAPHRASE_BUDGETS.join(' / ')} tokens: words only ${PARAPHRASE_BUDGETS.map((b) => result.evidencePresent[lang].words[b]).join(' / ')}, with embeddings ${PARAPHRASE_BUDGETS.map((b) => result.evidencePresent[lang].wordsAndMeaning[b]).join(' / ')}`,
        );
      log(`  ${result.note}`);
      return result;
    } finally {
      await vault.close();
    }
  } finally {
    await stub?.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchParaphrase({ log: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
