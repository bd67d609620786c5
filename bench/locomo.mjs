import { existsSync } from 'node:fs';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openVault } from '../dist/index.js';
import { benchEmbeddings, describeEmbeddings } from './bench-embeddings.mjs';
import { makeBaselines } from './locomo-baselines.mjs';
import { writeLocomoVault } from './locomo-vault.mjs';
import { round, summarize } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The dataset lives beside the repository, never inside it (CC BY-NC). */
// A worktree sits one folder deeper (`wt/<name>`); MEMVAULT_LOCOMO names another copy.
export const LOCOMO_PATH =
  process.env['MEMVAULT_LOCOMO'] ??
  [resolve(REPO, '..'), resolve(REPO, '..', '..')]
    .map((dir) => resolve(dir, 'shared', 'bench', 'locomo', 'locomo-dev.json'))
    .find((path) => existsSync(path)) ??
  resolve(REPO, '..', 'shared', 'bench', 'locomo', 'locomo-dev.json');

export const BUDGETS = [1000, 2000, 4000];
/** Category numbers as the file uses them (see the dataset's README). */
export const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
/** The order results are shown in: the commonest kind of question first. */
export const CATEGORY_ORDER = ['single-hop', 'multi-hop', 'temporal', 'open-domain'];
/** Reference figures from the dataset's README (evidence recall at 1000 / 2000 / 4000 tokens). */
export const REFERENCE = {
  'MiniSearch BM25, defaults': [0.601, 0.679, 0.739],
  'MiniSearch BM25, English stop words': [0.655, 0.698, 0.754],
  'recency only (newest turns)': [null, 0.09, 0.17],
};
/** Enough hits to fill the largest budget (recall itself stops at 200 text candidates). */
const RECALL_K = 400;

const charTokens = (text) => text.length / 4;

/** Evidence ids that name a turn: malformed ones (`D:11:26`) and unknown ones are skipped. */
export function evidenceOf(qa, turns) {
  const ids = (qa.evidence ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter(Boolean);
  return [...new Set(ids)].filter((id) => turns.has(id));
}

/** Ids ranked best first → the ids that fit in `budget` tokens (characters / 4), in order. */
function fillByChars(ranked, textOf, budget) {
  const taken = new Set();
  let used = 0;
  for (const id of ranked) {
    const cost = charTokens(textOf(id));
    if (used + cost > budget) break;
    used += cost;
    taken.add(id);
  }
  return taken;
}

/** How compile spent its budget: recalled vs recent items, and what one recalled item costs. */
function compileShape(compiled) {
  const relevant = compiled.sections.find((s) => s.name === 'relevant')?.items ?? [];
  const recent = compiled.sections.find((s) => s.name === 'recent')?.items ?? [];
  return {
    relevantItems: relevant.length,
    recentItems: recent.length,
    tokens: relevant.reduce((sum, item) => sum + item.tokens, 0),
    charTokens: relevant.reduce((sum, item) => sum + charTokens(item.text), 0),
  };
}

const share = (evidence, found) => evidence.filter((id) => found.has(id)).length / evidence.length;

function anchorToDia(anchor, byBlock) {
  return anchor.startsWith('^') ? byBlock.get(anchor.slice(1)) : undefined;
}

/** Evidence recall of every question of one conversation, for each retriever and budget. */
async function benchConversation(sample) {
  const root = await mkdtemp(join(tmpdir(), `memvault-locomo-${sample.sample_id}-`));
  try {
    // With MEM_BENCH_EMBEDDINGS, the sections are embedded first and every read fuses meaning in.
    const endpoint = benchEmbeddings();
    const { turns, now } = await writeLocomoVault(root, sample, endpoint);
    const byBlock = new Map(
      [...turns.keys()].map((id) => [id.toLowerCase().replace(/[^a-z0-9]+/g, '-'), id]),
    );
    const start = performance.now();
    const vault = await openVault({ path: root, cache: false });
    const openMs = performance.now() - start;
    if (endpoint) await vault.embed();
    const baselines = makeBaselines(turns);
    const rows = [];
    let skipped = 0;
    for (const qa of sample.qa) {
      if (!CATEGORIES[qa.category]) continue;
      const evidence = evidenceOf(qa, turns);
      if (evidence.length === 0) {
        skipped++;
        continue;
      }
      const question = String(qa.question);
      const t0 = performance.now();
      const recalled = endpoint
        ? await vault.recallAsync(question, { k: RECALL_K, now })
        : vault.recall(question, { k: RECALL_K, now });
      const recallMs = performance.now() - t0;
      /** @type {{ recall: number[], compile: number[], bm25: number[], recency: number[], compileMs: number[], shape?: ReturnType<typeof compileShape> }} */
      const shares = { recall: [], compile: [], bm25: [], recency: [], compileMs: [] };
      const row = { category: qa.category, ranged: Boolean(recalled.range), recallMs, ...shares };
      // Recall hits best first, counted as characters / 4 like the reference figures.
      const hitIds = [];
      const hitText = new Map();
      for (const hit of recalled.hits) {
        const id = anchorToDia(hit.anchor, byBlock) ?? hit.id;
        hitIds.push(id);
        hitText.set(id, hit.text);
      }
      const bm25 = baselines.bm25(question);
      const recency = baselines.recency();
      for (const budget of BUDGETS) {
        row.recall.push(
          share(
            evidence,
            fillByChars(hitIds, (id) => hitText.get(id) ?? '', budget),
          ),
        );
        row.bm25.push(share(evidence, fillByChars(bm25, baselines.textOf, budget)));
        row.recency.push(share(evidence, fillByChars(recency, baselines.textOf, budget)));
        const t1 = performance.now();
        const compiled = endpoint
          ? await vault.compileAsync({ message: question, budget, now })
          : vault.compile({ message: question, budget, now });
        row.compileMs.push(performance.now() - t1);
        const found = new Set();
        for (const section of compiled.sections) {
          for (const item of section.items) {
            const id = anchorToDia(item.anchor, byBlock);
            if (id) found.add(id);
          }
        }
        row.compile.push(share(evidence, found));
        if (budget === 2000) row.shape = compileShape(compiled);
      }
      rows.push(row);
    }
    return { id: sample.sample_id, turns: turns.size, openMs, rows, skipped };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const mean = (values) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

const sum = (rows, key) => rows.reduce((total, r) => total + r.shape[key], 0);

function table(rows, key) {
  const groups = {
    ...Object.fromEntries(CATEGORY_ORDER.map((name) => [name, []])),
    overall: rows,
  };
  for (const row of rows) groups[CATEGORIES[row.category]].push(row);
  return Object.fromEntries(
    Object.entries(groups).map(([name, list]) => [
      name,
      {
        n: list.length,
        ...Object.fromEntries(BUDGETS.map((b, i) => [b, round(mean(list.map((r) => r[key][i])), 3)])),
      },
    ]),
  );
}

/** The quality benchmark: evidence recall on LoCoMo (dev split), or `{skipped}` without the data. */
export async function benchLocomo({ conversations, log }) {
  const present = await access(LOCOMO_PATH).then(
    () => true,
    () => false,
  );
  if (!present) {
    log(`  locomo: skipped — ${LOCOMO_PATH} not found (the dataset is read from beside the repository)`);
    return { skipped: `${LOCOMO_PATH} not found` };
  }
  const data = JSON.parse(await readFile(LOCOMO_PATH, 'utf8'));
  const samples = data.slice(0, conversations ?? data.length);
  const rows = [];
  const perConversation = [];
  let skipped = 0;
  for (const sample of samples) {
    const result = await benchConversation(sample);
    rows.push(...result.rows);
    skipped += result.skipped;
    const at = (key) =>
      Object.fromEntries(BUDGETS.map((b, i) => [b, round(mean(result.rows.map((r) => r[key][i])), 3)]));
    const entry = {
      id: result.id,
      turns: result.turns,
      questions: result.rows.length,
      openMs: round(result.openMs),
      recall: at('recall'),
      compile: at('compile'),
    };
    perConversation.push(entry);
    log(
      `  ${result.id}: ${result.turns} turns, ${result.rows.length} questions, recall ${BUDGETS.map((b) => entry.recall[b]).join(' / ')}, compile ${BUDGETS.map((b) => entry.compile[b]).join(' / ')}`,
    );
  }
  const ranged = rows.filter((r) => r.ranged);
  return {
    dataset: 'LoCoMo dev split (CC BY-NC 4.0), read from /work/shared/bench/locomo',
    // Unset (undefined, left out of the JSON) unless MEM_BENCH_EMBEDDINGS named a real endpoint.
    embeddings: describeEmbeddings(benchEmbeddings()),
    conversations: samples.length,
    questions: rows.length,
    skippedNoEvidence: skipped,
    budgets: BUDGETS,
    memvaultRecall: table(rows, 'recall'),
    memvaultCompile: table(rows, 'compile'),
    harnessBm25: table(rows, 'bm25'),
    harnessRecency: table(rows, 'recency'),
    reference: REFERENCE,
    timeRange: {
      questions: ranged.length,
      recallAt2000: round(mean(ranged.map((r) => r.recall[1])), 3),
      note: 'questions whose time words narrowed recall to a date range',
    },
    compileShape: {
      budget: 2000,
      relevantItems: round(mean(rows.map((r) => r.shape.relevantItems)), 1),
      recentItems: round(mean(rows.map((r) => r.shape.recentItems)), 1),
      tokensPerItem: round(sum(rows, 'tokens') / sum(rows, 'relevantItems'), 1),
      charTokensPerItem: round(sum(rows, 'charTokens') / sum(rows, 'relevantItems'), 1),
    },
    timing: {
      recallPerQuestion: summarize(rows.map((r) => r.recallMs)),
      compilePerQuestion: Object.fromEntries(
        BUDGETS.map((b, i) => [b, summarize(rows.map((r) => r.compileMs[i]))]),
      ),
    },
    perConversation,
  };
}
