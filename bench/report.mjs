import { BUDGETS, CATEGORY_ORDER } from './locomo.mjs';

const num = (value, unit = '') =>
  value === undefined || value === null || Number.isNaN(value) ? '–' : `${value}${unit}`;
const sec = (ms) => num(ms === undefined ? undefined : Math.round(ms / 10) / 100, ' s');
const ms = (value) => num(value, ' ms');
/** Recall figures with three decimals, so columns line up. */
const r3 = (value) => (typeof value === 'number' && !Number.isNaN(value) ? value.toFixed(3) : '–');

function scaleTable(scale) {
  const sizes = scale.vaults.map((v) => v.notes);
  const rows = [
    [
      'notes (persona / profile / insights / dailies)',
      (v) => `${v.notes} (${v.plan.persona} / ${v.plan.profile} / ${v.plan.insights} / ${v.plan.dailies})`,
    ],
    ['episode entries · indexed sections', (v) => `${v.episodeEntries} · ${v.sections}`],
    ['vault size on disk', (v) => num(v.vaultMiB, ' MiB')],
    [
      'cold index build, no cache (median)',
      (v) =>
        `${sec(v.coldBuild.medianMs)} (${v.coldBuild.runs} run${v.coldBuild.runs > 1 ? 's' : ''}: ${v.coldBuild.allMs.map((t) => sec(t)).join(', ')})`,
    ],
    ['index cache file', (v) => num(v.cacheMiB, ' MiB')],
    ['warm open, cache valid (median of 3)', (v) => ms(v.warmOpen.medianMs)],
    [
      'edit 1 note → `refresh()` (walks the vault; saves the cache once 1% is stale) (median of 3)',
      (v) => ms(v.editOneNote.refreshMedianMs),
    ],
    ['edit 1 note → `refreshPaths([path])` (median of 3)', (v) => ms(v.editOneNote.refreshPathsMedianMs)],
    ['cache save alone (median of 3)', (v) => ms(v.editOneNote.saveCacheMedianMs)],
    [
      'RSS after warm open (library alone)',
      (v) => `${num(v.memory.rssMiB, ' MiB')} (${num(v.memory.baselineRssMiB, ' MiB')})`,
    ],
    [
      'heapUsed after warm open (library alone)',
      (v) => `${num(v.memory.heapUsedMiB, ' MiB')} (${num(v.memory.baselineHeapUsedMiB, ' MiB')})`,
    ],
    [
      'recall, 200 queries: p50 / p95 / max',
      (v) => `${ms(v.recall.p50)} / ${ms(v.recall.p95)} / ${ms(v.recall.max)}`,
    ],
    [
      'compile @2000 tokens, 200 messages: p50 / p95 / max',
      (v) => `${ms(v.compile.p50)} / ${ms(v.compile.p95)} / ${ms(v.compile.max)}`,
    ],
    ['remember, 50 appends: p50 / p95', (v) => `${ms(v.remember.p50)} / ${ms(v.remember.p95)}`],
  ];
  const lines = [
    `| | ${sizes.map((s) => `${s / 1000}k notes`).join(' | ')} |`,
    `|---|${sizes.map(() => '---').join('|')}|`,
  ];
  for (const [label, cell] of rows) lines.push(`| ${label} | ${scale.vaults.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function shapeTable(scale) {
  const shapes = Object.keys(scale.vaults[0]?.recall.byShapeP50 ?? {});
  const lines = [
    '| p50 by query shape | ' + shapes.join(' | ') + ' |',
    `|---|${shapes.map(() => '---').join('|')}|`,
  ];
  for (const v of scale.vaults) {
    lines.push(
      `| recall, ${v.notes / 1000}k | ${shapes.map((s) => ms(v.recall.byShapeP50[s])).join(' | ')} |`,
    );
    lines.push(
      `| compile, ${v.notes / 1000}k | ${shapes.map((s) => ms(v.compile.byShapeP50[s])).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function serviceLines(scale) {
  const out = [];
  const w = scale.watcher;
  if (w?.skipped) out.push(`- Watcher: skipped (${w.skipped}).`);
  else if (w)
    out.push(
      `- Watcher, 1k vault, file write → found by recall: p50 ${ms(w.p50)}, p95 ${ms(w.p95)}, max ${ms(w.max)} over ${w.n} writes (${w.failures} timed out; ${w.note}).`,
    );
  const c = scale.companion;
  if (c)
    out.push(
      `- Companion adds, real \`mem serve\` on a git vault: \`/memory/add\` → found by \`/memory/search\` p50 ${ms(c.addToSearchable.p50)}, p95 ${ms(c.addToSearchable.p95)} over ${c.addToSearchable.n} adds (${c.addToSearchable.missed} missed); ${c.burst.adds} exchanges at concurrency ${c.burst.concurrency} answered in ${sec(c.burst.answeredMs)}, then SIGTERM → exit in ${sec(c.burst.drainMs)} with ${c.burst.commits} group commits (${c.burst.clean ? 'working tree clean' : 'working tree NOT clean'}).`,
    );
  const h = scale.http;
  if (h?.skipped) out.push(`- HTTP: skipped (${h.skipped}).`);
  else if (h)
    out.push(
      `- HTTP \`mem serve\`, 10k vault, loopback, ${h.compile.n} requests per route at concurrency ${h.concurrency} (server start to listening ${sec(h.startMs)}):`,
      `  - \`POST /compile\` (budget 2000): p50 ${ms(h.compile.p50)}, p95 ${ms(h.compile.p95)}, max ${ms(h.compile.max)}, ${h.compile.perSecond} req/s`,
      `  - \`POST /memory/search\` (limit 8): p50 ${ms(h.memorySearch.p50)}, p95 ${ms(h.memorySearch.p95)}, max ${ms(h.memorySearch.max)}, ${h.memorySearch.perSecond} req/s`,
      h.serial &&
        `  - one request at a time (${h.serial.compile.n} each): \`/compile\` p50 ${ms(h.serial.compile.p50)}, p95 ${ms(h.serial.compile.p95)}; \`/memory/search\` p50 ${ms(h.serial.memorySearch.p50)}, p95 ${ms(h.serial.memorySearch.p95)}`,
    );
  return out.filter(Boolean).join('\n');
}

function qualityTable(locomo) {
  const head = `| evidence recall | ${BUDGETS.map((b) => `@${b}`).join(' | ')} |`;
  const lines = [head, `|---|${BUDGETS.map(() => '---:').join('|')}|`];
  const groups = [...CATEGORY_ORDER, 'overall'];
  const row = (label, cells) => lines.push(`| ${label} | ${cells.join(' | ')} |`);
  for (const [title, key] of /** @type {[string, string][]} */ ([
    ['memvault `recall`, hits by chars/4', 'memvaultRecall'],
    ['memvault `compile`, BPE tokens, rendered', 'memvaultCompile'],
    ['harness: MiniSearch BM25 defaults, "Speaker: text"', 'harnessBm25'],
    ['harness: newest turns first', 'harnessRecency'],
  ])) {
    for (const group of groups) {
      const cell = locomo[key][group];
      row(
        `${title} — ${group} (n=${cell.n})`,
        BUDGETS.map((b) => r3(cell[b])),
      );
    }
  }
  for (const [label, values] of Object.entries(locomo.reference))
    row(
      `README reference: ${label} — overall`,
      values.map((v) => r3(v)),
    );
  return lines.join('\n');
}

/** Recall and compile of each conversation, so a reader sees whether a gain holds in each. */
function conversationTable(locomo) {
  const lines = [
    `| conversation | turns | questions | ${BUDGETS.map((b) => `recall @${b}`).join(' | ')} | ${BUDGETS.map((b) => `compile @${b}`).join(' | ')} |`,
    `|---|---:|---:|${[...BUDGETS, ...BUDGETS].map(() => '---:').join('|')}|`,
  ];
  for (const c of locomo.perConversation ?? []) {
    if (!c.recall || !c.compile) continue;
    lines.push(
      `| ${c.id} | ${c.turns} | ${c.questions} | ${BUDGETS.map((b) => r3(c.recall[b])).join(' | ')} | ${BUDGETS.map((b) => r3(c.compile[b])).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function longChineseLines(zh) {
  if (!zh) return [];
  return [
    '',
    '## Scale: one long Chinese note',
    '',
    `A note of short Chinese lines in one section (\`bench/long-chinese.mjs\`, seeded), indexed by \`openVault\` without a cache, less an open with a one-line note (${zh.baseOpenMs} ms).`,
    '',
    '| characters | lines | index ms | characters / ms |',
    '|---:|---:|---:|---:|',
    ...zh.sizes.map((s) => `| ${s.chars} | ${s.lines} | ${s.indexMs} | ${s.charsPerMs} |`),
    '',
    `Speed at the largest size relative to the smallest: ${zh.speedRatio} (1 = linear).`,
  ];
}

function knowledgeUpdateLines(ku) {
  if (!ku || ku.skipped) return [];
  const lang = (l) =>
    `${l} (n=${ku.byLanguage[l].n}): present ${pct(ku.byLanguage[l].latestPresent)}, first ${pct(ku.byLanguage[l].latestFirst)}`;
  return [
    '',
    '## Quality: knowledge update',
    '',
    `A generated diary (\`bench/knowledge-update.mjs\`, seeded): ${ku.facts} facts that change twice over eight months (where Rain lives, works, what she studies …; three versions each, worded differently, among four chatty entries a day), asked in English and Chinese, with and without a word that asks about the present (now, these days, 现在, 目前, 最近). One ${ku.budget}-token compile per question.`,
    '',
    `- Latest version present: ${pct(ku.latestPresent)}; latest version before every stale one shown: ${pct(ku.latestFirst)} (${ku.questions} questions). By language: ${['en', 'zh'].map(lang).join('; ')}.`,
    ku.misses.length > 0 ? `- Not latest first: ${ku.misses.map((q) => `"${q}"`).join(', ')}.` : '',
  ].filter((line, i, all) => line !== '' || all[i - 1] !== '');
}

const pct = (value) => `${Math.round(value * 1000) / 10}%`;

function paraphraseLines(p) {
  if (!p) return [];
  const row = (lang, key, label) =>
    `| ${lang.toUpperCase()} (n=${p.questions[lang]}) | ${label} | ${p.budgets.map((b) => pct(p.evidencePresent[lang][key][b])).join(' | ')} |`;
  return [
    '',
    '## Quality: paraphrase (embeddings plumbing)',
    '',
    `Questions that share no indexed term with their evidence (\`bench/paraphrase-pairs.mjs\`), in a vault of ${p.vault.distractors} distractor entries and ${p.vault.evidence} evidence entries; one compile per question and budget, by words only and with embeddings (${p.embeddings}, fusion ${p.fusion}). Share of questions whose evidence entry is in the document:`,
    '',
    `| | ranking | ${p.budgets.map((b) => `@${b}`).join(' | ')} |`,
    `|---|---|${p.budgets.map(() => '---:').join('|')}|`,
    ...['en', 'zh'].flatMap((lang) => [
      row(lang, 'words', 'words only'),
      row(lang, 'wordsAndMeaning', 'words + meaning'),
    ]),
    '',
    `${p.note} Embedding every section: ${ms(p.embedAllMs)}; a compile with embeddings: ${ms(p.compileWithEmbeddingsMs)}${p.requestsPerTurn === undefined ? '' : `, ${p.requestsPerTurn} embedding requests per turn`}.`,
  ];
}

function compactQuality(locomo) {
  const groups = [...CATEGORY_ORDER, 'overall'];
  const lines = [
    `| | ${groups.map((g) => `${g} (n=${locomo.memvaultRecall[g].n})`).join(' | ')} |`,
    `|---|${groups.map(() => '---:').join('|')}|`,
  ];
  for (const [label, key] of /** @type {[string, string][]} */ ([
    ['recall', 'memvaultRecall'],
    ['compile', 'memvaultCompile'],
    ['BM25 (harness)', 'harnessBm25'],
  ])) {
    for (const b of BUDGETS)
      lines.push(`| ${label} @${b} | ${groups.map((g) => r3(locomo[key][g][b])).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** RESULTS.md: what was measured, on what, and every number with its unit. */
export function renderMarkdown(results) {
  const { machine } = results;
  const out = [
    '# memvault benchmark results',
    '',
    `Run ${results.ranAt} (${results.mode} run) on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB RAM, Node ${machine.node}, ${machine.platform}. Total time ${sec(results.totalMs)}.`,
    'Generated by `npm run bench` (`bench/run.mjs`); raw numbers in `results.json`. Times are wall-clock on a shared machine: compare runs on the same machine only.',
    'Side by side with qmd, ripgrep and plain MiniSearch (whole-process CPU time, paired runs, log–log charts of cost against vault size): [SCALE.md](SCALE.md), from `npm run bench -- --scale`.',
  ];
  const scale = results.scale;
  if (scale?.vaults?.length) {
    out.push(
      '',
      '## Scale',
      '',
      `Synthetic vaults (seeded, deterministic; Chinese, English and mixed entries \`- HH:MM **Speaker:** text ^eN\`, \`[[Person]]\` links, insights citing \`[[YYYY-MM-DD#^eN]]\`), written to a temp folder. Queries and messages are asked at ${scale.now}. ${scale.coldNote}`,
      '',
      scaleTable(scale),
      '',
      shapeTable(scale),
      '',
      scale.vaults
        .map(
          (v) =>
            `${v.notes / 1000}k: ${v.recall.withTimeRange} of ${v.recall.n} queries read a date range, ${v.recall.noHits} found nothing; compile used ${v.compile.meanUsed} of ${v.compile.budget} tokens on average, ${v.compile.overBudget} over budget.`,
        )
        .join(' '),
      '',
      serviceLines(scale),
    );
  } else if (scale?.skipped) out.push('', '## Scale', '', `Skipped: ${scale.skipped}`);
  const locomo = results.locomo;
  if (locomo && !locomo.skipped) {
    const t = locomo.timing;
    out.push(
      '',
      '## Quality: LoCoMo evidence recall',
      '',
      `${locomo.dataset}: ${locomo.conversations} conversations, ${locomo.questions} questions in categories 1–4 (${locomo.skippedNoEvidence} skipped: no evidence id names a turn). One vault per conversation, one daily note per session date, one entry per turn (photo captions kept as \`[shares a photo: …]\`), block id from the dia_id. Evidence recall = share of a question's evidence turns inside what was retrieved, averaged over questions. \`now\` = the day after the last session.`,
      '',
      '- `recall`: `vault.recall(question, {k: 400})` hits, best first, until their text (characters / 4, as in the README figures) fills the budget.',
      "- `compile`: `vault.compile({message: question, budget})`, default shares (no persona or profile, so their share flows to the recalled memories; with no conversation history 5% goes to the newest entries); tokens are real o200k tokens of the rendered document: each day's link once, then `- ^id Speaker:` and the entry's words quoted (`> text`) per entry.",
      "- The harness rows run plain MiniSearch in this harness over the same turns, to check it against the README's reference figures.",
      '',
      compactQuality(locomo),
      '',
      `README reference, overall @1000 / @2000 / @4000: ${Object.entries(locomo.reference)
        .map(([label, values]) => `${label} ${values.map(r3).join(' / ')}`)
        .join('; ')}.`,
      '',
      'Per conversation:',
      '',
      conversationTable(locomo),
      '',
      '<details><summary>All rows, with the README reference</summary>',
      '',
      qualityTable(locomo),
      '',
      '</details>',
      '',
      `Questions whose time words narrowed recall to a date range: ${locomo.timeRange.questions}, recall @2000 ${r3(locomo.timeRange.recallAt2000)}.`,
      `Compile @2000 on average: ${num(locomo.compileShape.relevantItems)} recalled items and ${num(locomo.compileShape.recentItems)} recent items; a recalled item costs ${num(locomo.compileShape.tokensPerItem)} tokens rendered vs ${num(locomo.compileShape.charTokensPerItem)} as characters / 4 of its text.`,
      `Time per question: recall (k=400) p50 ${ms(t.recallPerQuestion.p50)}, p95 ${ms(t.recallPerQuestion.p95)}; compile p50 ${BUDGETS.map((b) => `${ms(t.compilePerQuestion[b].p50)} @${b}`).join(', ')}; p95 ${BUDGETS.map((b) => `${ms(t.compilePerQuestion[b].p95)} @${b}`).join(', ')}.`,
    );
  } else if (locomo?.skipped) out.push('', '## Quality: LoCoMo', '', `Skipped: ${locomo.skipped}`);
  out.push(...paraphraseLines(results.paraphrase));
  out.push(...longChineseLines(results.longChinese));
  out.push(...knowledgeUpdateLines(results.knowledgeUpdate));
  return `${out.join('\n')}\n`;
}
