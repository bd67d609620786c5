// Every multi-step command killed at every write step in turn (MEM_TEST_CRASH_AFTER=n, n = 1, 2, …
// until the command finishes without being killed), then run again to completion. After each kill:
// the vault's files equal those of a clean single run, everything is committed (git status clean) as
// ONE new commit, and one `mem undo` brings the vault back to what it was before the command, with
// no link dangling that resolved before. The default tier kills at every step of mv and forget and
// at a sample of the steps of the others (a few seconds a kill on a loaded machine); MEM_SLOW=1
// kills at every step of all.
// With MEM_RELIABILITY_REPORT set, one JSON line per command is appended to that file.
// Needs `npm run build`.
import { execFile, spawn } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { CLIMBING_NOTES, CLIMBING_OPERATIONS } from '../fixtures/reflect/climbing-vault.js';
import { GIT_ENV, gitInit } from '../helpers/git.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { reportReliability } from '../helpers/reliability-report.js';

const SLOW = Boolean(process.env['MEM_SLOW']);
const run = promisify(execFile);

afterAll(cleanupVaults);

const day = (date: string, text: string) =>
  `---\ndate: ${date}\n---\n# ${date}\n\n- 09:00 **Rain:** ${text} ^e1\n`;

/** Old days covered by rollups and cited by insights: forget --stale archives them and lowers the insights. */
const STALE: Record<string, string> = {
  'profile/user.md': '# Rain\n\nThe day we met: [[2026-01-06]].\n',
  'episodes/daily/2026-01-05.md': day('2026-01-05', 'Tea with [[Mei]].'),
  'episodes/daily/2026-01-06.md': day('2026-01-06', 'We met.'),
  'episodes/daily/2026-01-07.md': day('2026-01-07', 'A walk.'),
  'episodes/daily/2026-01-08.md': day('2026-01-08', 'Rain all day.'),
  'episodes/weekly/2026-W02.md':
    '---\ntype: rollup\nperiod: 2026-W02\n---\n# Week 2\n\n- [[2026-01-05]], [[2026-01-06]], [[2026-01-07]], [[2026-01-08]].\n',
  'profile/people/Mei.md': '# Mei\n',
  'insights/facts/a.md':
    '---\nimportance: 0.8\nupdated: 2026-02-01T10:00:00+08:00\nsources:\n  - "[[2026-01-05#^e1]]"\n---\n# A\n',
  'insights/facts/b.md':
    '---\nimportance: 0.6\nupdated: 2026-02-01T10:00:00+08:00\nsources:\n  - "[[2026-01-07#^e1]]"\n  - "[[2026-01-08#^e1]]"\n---\n# B\n',
};

/** Days of November 2026: `reflect --missing` writes three weeks and the month. */
const NOVEMBER: Record<string, string> = Object.fromEntries(
  [3, 10, 11, 18].map((d) => {
    const date = `2026-11-${String(d).padStart(2, '0')}`;
    return [`episodes/daily/${date}.md`, day(date, `Packed box ${d} for the move to [[Shanghai]].`)];
  }),
);

interface Scenario {
  name: string;
  files: Record<string, string>;
  config?: object;
  args: string[];
  /** Commands run (to completion) before the one under test, e.g. the write an undo takes back */
  before?: string[][];
  /** Steps between kills in the default tier (1: every step) */
  stride: number;
  /** Whether one `mem undo` after the command brings the vault back (an undo's undo walks further back instead) */
  undoable?: false;
}

const STALE_CONFIG = { timezone: 'Asia/Shanghai', forget: { staleAfterDays: 90, unrecalledDays: 30 } };
const NOW = '2026-11-30T10:00:00+08:00';

const SCENARIOS: Scenario[] = [
  {
    name: 'mv',
    files: CLIMBING_NOTES,
    args: ['mv', 'profile/people/Mei.md', 'profile/friends/Mei Lin.md'],
    stride: 1,
  },
  {
    name: 'forget',
    files: CLIMBING_NOTES,
    args: ['forget', 'profile/people/Mei.md', '--reason', 'moved away'],
    stride: 1,
  },
  { name: 'forget --hard', files: CLIMBING_NOTES, args: ['forget', 'insights/tea.md', '--hard'], stride: 2 },
  {
    name: 'note set',
    files: CLIMBING_NOTES,
    args: ['note', 'set', 'profile/people/Mei.md', 'importance=0.9', 'tags=[friend]'],
    stride: 3,
  },
  {
    name: 'forget --stale',
    files: STALE,
    config: STALE_CONFIG,
    args: ['forget', '--stale', '--now', NOW],
    stride: 11,
  },
  {
    name: 'reflect --rollup --missing',
    files: NOVEMBER,
    args: ['reflect', '--missing', '--offline', '--now', '2026-12-01T09:00:00+08:00'],
    stride: 9,
  },
  { name: 'reflect', files: CLIMBING_NOTES, args: ['reflect', '--now', NOW], stride: 7 },
  {
    name: 'reflect offline',
    files: {
      // Rain is the user (profile/user.md's title): only the user's own lines hold commitments.
      'profile/user.md': '# Rain\n',
      'episodes/daily/2026-11-29.md':
        '---\ndate: 2026-11-29\n---\n# 2026-11-29\n\n- 09:00 **Rain:** I promise to call Mei on Friday. ^e1\n- 09:05 **Rain:** I will send the photos tomorrow. ^e2\n',
    },
    args: ['reflect', '--commitments', '--now', NOW],
    stride: 3,
  },
  {
    name: 'ingest',
    files: {
      ...CLIMBING_NOTES,
      'chat.jsonl': [
        ['user', 'We start packing today.', '2026-11-27T09:00:00+08:00'],
        ['assistant', 'Good luck with the boxes.', '2026-11-27T09:01:00+08:00'],
        ['user', 'Half the books are packed.', '2026-11-28T20:00:00+08:00'],
        ['user', 'Mei helped with the kitchen.', '2026-11-29T18:00:00+08:00'],
      ]
        .map(([role, content, timestamp]) => JSON.stringify({ role, content, timestamp }))
        .join('\n'),
    },
    args: ['ingest', 'chat.jsonl'],
    stride: 5,
  },
  {
    // An MCP memory graph: new entity notes, and facts appended to the user's and Mei's own notes.
    name: 'import memory graph',
    files: {
      ...CLIMBING_NOTES,
      'memory.jsonl': [
        { type: 'entity', name: 'default_user', entityType: 'person', observations: ['Moves to Shanghai'] },
        { type: 'entity', name: 'Mei', entityType: 'person', observations: ['Closest friend in Hangzhou'] },
        {
          type: 'entity',
          name: 'Lumen_Labs',
          entityType: 'organization',
          observations: ['Infra on the 12th floor'],
        },
        { type: 'entity', name: 'Juno', entityType: 'pet', observations: ['A grey cat'] },
        { type: 'relation', from: 'default_user', to: 'Lumen_Labs', relationType: 'works_at' },
        { type: 'relation', from: 'Mei', to: 'Juno', relationType: 'owns' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    },
    args: ['import', 'memory.jsonl', '--now', NOW],
    stride: 3,
  },
  {
    name: 'undo',
    files: CLIMBING_NOTES,
    before: [['mv', 'profile/people/Mei.md', 'profile/friends/Mei Lin.md']],
    args: ['undo'],
    stride: 5,
    undoable: false,
  },
];

let llm: Awaited<ReturnType<typeof startLlmStub>>;
beforeAll(async () => {
  llm = await startLlmStub(() => CLIMBING_OPERATIONS);
  return () => llm.close();
});

/** Runs the built `mem` in its own process. */
function runMem(
  root: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), '--vault', root, ...args], {
      cwd: root,
      env: { ...GIT_ENV, MEM_LLM_BASE_URL: llm.baseURL, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function mustRun(root: string, args: string[]): Promise<void> {
  const out = await runMem(root, args);
  expect(out.stderr, `mem ${args.join(' ')}`).toBe('');
  expect(out.code).toBe(0);
}

/** Each scenario's vault, made once (files, git, the commands before): every kill starts from a copy. */
const templates = new Map<Scenario, string>();

async function freshVault(scenario: Scenario): Promise<string> {
  let template = templates.get(scenario);
  if (template === undefined) {
    template = await makeVault(scenario.files, { config: scenario.config ?? { timezone: 'Asia/Shanghai' } });
    await gitInit(template);
    for (const args of scenario.before ?? []) await mustRun(template, args);
    templates.set(scenario, template);
  }
  const from = template;
  const root = await makeVault({});
  // The repository and the files, not the index cache (rebuilt by each run from the files).
  await cp(from, root, { recursive: true, filter: (src) => !src.startsWith(join(from, '.mem')) });
  return root;
}

/** Every file of the vault but .git/ and .mem/, by path; a new note's random id and forget's clock time are masked. */
async function tree(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const names = (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  for (const entry of names) {
    const path = join(entry.parentPath, entry.name).slice(root.length + 1);
    if (path.startsWith('.git/') || path.startsWith('.mem/')) continue;
    files[path] = (await readFile(join(root, path), 'utf8'))
      // An id of hex digits that are all decimal (p ≈ 0.0035 each) is written quoted, as YAML would read a number.
      .replace(/^id: ("?)[0-9a-f]{12}\1$/gm, 'id: x')
      .replace(/^archived: .*$/gm, 'archived: x');
  }
  return files;
}

/** Links that resolve nowhere, as `from -> target`. */
async function dangling(root: string): Promise<string[]> {
  const index = new VaultIndex();
  await refreshIndex(root, index);
  return index.graph.unresolved().map((edge) => `${edge.from} -> ${edge.link.target}`);
}

const gitOut = async (root: string, ...args: string[]) =>
  (await run('git', args, { cwd: root, env: GIT_ENV })).stdout;

/** Kill steps to try: every one, or every `stride`-th in the default tier. */
function* steps(stride: number): Generator<number> {
  for (let n = 1; ; n += SLOW ? 1 : stride) yield n;
}

describe.each(SCENARIOS.map((s) => [s.name, s] as const))(
  'mem %s killed at every write step, then run again',
  (_, scenario) => {
    it('ends as one clean run: same files, one commit, and one undo restores the vault with no dangling link', async () => {
      const clean = await freshVault(scenario);
      const before = await tree(clean);
      const danglingBefore = await dangling(clean);
      const head = (await gitOut(clean, 'rev-parse', 'HEAD')).trim();
      await mustRun(clean, scenario.args);
      const after = await tree(clean);
      expect(after).not.toEqual(before);
      expect(await gitOut(clean, 'rev-list', '--count', `${head}..HEAD`)).toBe('1\n');

      let kills = 0;
      let lost = 0;
      let danglingCount = 0;
      for (const n of steps(scenario.stride)) {
        const root = await freshVault(scenario);
        const start = (await gitOut(root, 'rev-parse', 'HEAD')).trim();
        const killed = await runMem(root, scenario.args, { MEM_TEST_CRASH_AFTER: String(n) });
        if (killed.signal !== 'SIGKILL') {
          expect(killed.stderr).toBe('');
          expect(killed.code).toBe(0);
          expect(await tree(root)).toEqual(after);
          break;
        }
        kills++;
        const label = `${scenario.name} killed at step ${n}`;
        if (scenario.undoable !== false && (SLOW || (scenario.name === 'mv' && n % 3 === 1))) {
          // Undone at once instead of run again: the killed run's part is taken back whole.
          const copy = await makeVault({});
          await cp(root, copy, { recursive: true });
          const undo = await runMem(copy, ['undo']);
          expect(undo.signal, label).toBeNull();
          expect(await tree(copy), `${label}, then undone without a re-run`).toEqual(before);
          expect((await dangling(copy)).filter((link) => !danglingBefore.includes(link))).toEqual([]);
          expect(await gitOut(copy, 'status', '--porcelain'), label).toBe('');
        }
        const again = await runMem(root, scenario.args);
        expect(again.stderr, label).toBe('');
        expect(again.code, label).toBe(0);
        expect(await tree(root), label).toEqual(after);
        expect(await gitOut(root, 'status', '--porcelain'), label).toBe('');
        expect(await gitOut(root, 'rev-list', '--count', `${start}..HEAD`), label).toBe('1\n');

        if (scenario.undoable === false) continue;
        const undo = await runMem(root, ['undo']);
        expect(undo.stderr, label).toBe('');
        const restored = await tree(root);
        if (JSON.stringify(restored) !== JSON.stringify(before)) lost++;
        expect(restored, `${label}, then undone`).toEqual(before);
        const now = (await dangling(root)).filter((link) => !danglingBefore.includes(link));
        danglingCount += now.length;
        expect(now, `${label}, then undone`).toEqual([]);
        if (SLOW) await run('git', ['fsck', '--no-progress'], { cwd: root });
        expect(n).toBeLessThan(200);
      }
      expect(kills).toBeGreaterThan(0);
      await reportReliability({
        class: 'killed at every write step, re-run, undone',
        command: scenario.name,
        kills,
        lost,
        dangling: danglingCount,
      });
    }, 900_000);
  },
);
