// `mem note set`, `mem mv`, `mem forget` and `mem reflect` killed with SIGKILL between the steps of
// their writes (MEM_TEST_CRASH_AFTER=n kills at the n-th step) and, in the slow tier, at random
// moments: every file is as it was before or as a clean run leaves it, no link dangles that did not
// before, the next run finishes the job, git stays sound. Needs `npm run build`.
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { readVault } from '../../src/vault/read-vault.js';
import { CLIMBING_NOTES, CLIMBING_OPERATIONS } from '../fixtures/reflect/climbing-vault.js';
import { GIT_ENV, gitInit } from '../helpers/git.js';
import { startLlmStub } from '../helpers/llm-stub.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';

const SLOW = Boolean(process.env['MEM_SLOW']);
/** Kills at random moments per verb, on top of one kill at every step (slow tier only). */
const RANDOM_KILLS = SLOW ? 40 : 0;
const run = promisify(execFile);

afterAll(cleanupVaults);

let llm: Awaited<ReturnType<typeof startLlmStub>>;
beforeAll(async () => {
  llm = await startLlmStub(() => CLIMBING_OPERATIONS);
  return () => llm.close();
});

const VERBS: Array<{ name: string; args: string[] }> = [
  { name: 'note set', args: ['note', 'set', 'profile/people/Mei.md', 'importance=0.9', 'tags=[friend]'] },
  { name: 'mv', args: ['mv', 'profile/people/Mei.md', 'profile/friends/Mei Lin.md'] },
  { name: 'forget', args: ['forget', 'profile/people/Mei.md', '--reason', 'moved away'] },
  { name: 'reflect', args: ['reflect', '--now', '2026-11-30T10:00:00+08:00'] },
];

/** Runs the built `mem`; killed with SIGKILL after `killAfterMs` when given. */
function runMem(
  root: string,
  args: string[],
  env: Record<string, string> = {},
  killAfterMs?: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/cli/main.js'), '--vault', root, ...args], {
      env: { ...GIT_ENV, MEM_LLM_BASE_URL: llm.baseURL, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

async function freshVault(): Promise<string> {
  const root = await makeVault(CLIMBING_NOTES, { config: { timezone: 'Asia/Shanghai' } });
  await gitInit(root);
  return root;
}

/** Every note's text by path; a new note's random id and forget's `archived` time are masked. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const notes = new Map<string, string>();
  for (const file of await readVault(root)) {
    notes.set(file.path, (await readFile(file.abs, 'utf8')).replace(/^(archived|id): .*$/gm, '$1: x'));
  }
  return notes;
}

async function dangling(root: string): Promise<string[]> {
  const index = new VaultIndex();
  await refreshIndex(root, index);
  return index.graph.unresolved().map((edge) => `${edge.from} -> ${edge.link.target}`);
}

/** After a kill: each note is as before or as after a clean run, and no new link dangles. */
async function expectWholeState(
  root: string,
  before: Map<string, string>,
  after: Map<string, string>,
  danglingBefore: string[],
): Promise<void> {
  const now = await snapshot(root);
  for (const path of new Set([...now.keys(), ...before.keys(), ...after.keys()])) {
    expect([before.get(path), after.get(path)], path).toContain(now.get(path));
  }
  for (const link of await dangling(root)) expect(danglingBefore, link).toContain(link);
}

function same(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}

describe.each(VERBS)('mem $name killed while it writes', ({ args }) => {
  it('leaves the old state or the new one, and a re-run finishes the job', async () => {
    const clean = await freshVault();
    const before = await snapshot(clean);
    const danglingBefore = await dangling(clean);
    const done = await runMem(clean, args);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    const after = await snapshot(clean);
    expect(same(before, after)).toBe(false);

    const kills: Array<{ env?: Record<string, string>; ms?: number }> = [];
    // One kill at each step in the slow tier; one mid-write (step 2) in the default suite.
    for (const n of SLOW ? Array.from({ length: 16 }, (_, i) => i + 1) : [2])
      kills.push({ env: { MEM_TEST_CRASH_AFTER: String(n) } });
    for (let i = 0; i < RANDOM_KILLS; i++) kills.push({ ms: 150 + Math.floor(Math.random() * 1200) });

    let killed = 0;
    for (const kill of kills) {
      const root = await freshVault();
      const result = await runMem(root, args, kill.env, kill.ms);
      if (result.signal === 'SIGKILL') killed++;
      else expect(result.code, result.stderr).toBe(0);
      await expectWholeState(root, before, after, danglingBefore);

      // The next run finishes what the killed one started (nothing to do when it was done).
      if (!same(await snapshot(root), after)) {
        const again = await runMem(root, args);
        expect(again.stderr).toBe('');
        expect(again.code).toBe(0);
      }
      expect(Object.fromEntries(await snapshot(root)), JSON.stringify(kill)).toEqual(
        Object.fromEntries(after),
      );
      await run('git', ['fsck', '--no-progress'], { cwd: root });
    }
    expect(killed).toBeGreaterThan(0);
  }, 600_000);
});
