// Long Chinese text: a note of short Chinese lines (a pasted list or chat log) must index at the
// same speed per character at 1 MB as at 10 KB. Before Segmenter passes were bounded, one section
// of 16,000 such lines did not finish in 60 s and a 1 MB note took 169 s (issue 22).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openVault } from '../dist/index.js';
import { makeRandom } from './prng.mjs';
import { median, round } from './stats.mjs';
import { ZH_WORDS } from './word-lists.mjs';

/** Sizes in characters of the note's text, and how many timed opens each gets (after one warmup). */
const SIZES = [
  { chars: 10_000, runs: 7 },
  { chars: 100_000, runs: 3 },
  { chars: 1_000_000, runs: 2 },
];

/** Short lines of 2–4 Chinese words, under no heading: the whole note is one section. */
function chineseLines(chars, seed) {
  const random = makeRandom(seed);
  const lines = [];
  let length = 0;
  while (length < chars) {
    const line = Array.from({ length: random.int(2, 4) }, () => random.pick(ZH_WORDS)).join('');
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

async function vaultWith(text) {
  const root = await mkdtemp(join(tmpdir(), 'memvault-zh-'));
  await mkdir(join(root, 'insights'), { recursive: true });
  await writeFile(
    join(root, 'mem.config.json'),
    `${JSON.stringify({ timezone: 'UTC', git: { autoCommit: false } })}\n`,
  );
  await writeFile(join(root, 'insights', 'pasted.md'), text);
  return root;
}

/** Median ms of openVault without a cache (read, parse, index the one note). */
async function openMs(root, runs) {
  // Closed after each open: a vault left open keeps its index, and the next open of a 1 MB note
  // then pays for the garbage collector walking the old one.
  await (await openVault({ path: root, cache: false })).close();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const vault = await openVault({ path: root, cache: false });
    times.push(performance.now() - start);
    await vault.close();
  }
  return median(times);
}

export async function benchLongChinese({ log }) {
  // What an open costs with a one-line note, taken off every size so only the text's share is left.
  const baseRoot = await vaultWith('短\n');
  const roots = [baseRoot];
  try {
    const baseMs = await openMs(baseRoot, 7);
    const rows = [];
    for (const { chars, runs } of SIZES) {
      const text = chineseLines(chars, 7);
      const root = await vaultWith(text);
      roots.push(root);
      const ms = Math.max(await openMs(root, runs), baseMs + 0.001) - baseMs;
      const row = {
        chars: text.length,
        lines: text.split('\n').length - 1,
        indexMs: round(ms),
        charsPerMs: round(text.length / ms),
      };
      log(
        `long Chinese: ${row.chars} chars in ${row.lines} lines indexed in ${row.indexMs} ms (${row.charsPerMs} chars/ms)`,
      );
      rows.push(row);
    }
    const small = rows[0];
    const large = rows[rows.length - 1];
    return {
      note: 'openVault without a cache on a vault of one note of short Chinese lines (one section), minus an open with a one-line note; median of timed runs after one warmup',
      baseOpenMs: round(baseMs),
      sizes: rows,
      speedRatio: round(large.charsPerMs / small.charsPerMs),
    };
  } finally {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  }
}
