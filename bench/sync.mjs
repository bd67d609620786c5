// `mem sync` of one day both clones of a vault wrote to: N new entries on each side (N = 10, 100,
// 1000), synced through a bare remote on disk with real git. The time measured is the second
// clone's sync (fetch, the entry-level merge of the day, the merge commit, the work tree, push);
// the first clone's sync (a push) is given too. Median of several runs, each on fresh clones.
// Also the memory of many small vaults open in one process (as `mem serve --vaults` holds them).
// Needs `npm run build`. Usage: node bench/sync.mjs [--runs 5] [--write]
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openVault } from '../dist/index.js';
import { median, round } from './stats.mjs';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
Object.assign(process.env, GIT_ENV);

const DAY = '2026-11-29';

/** @param {string} cwd @param {string[]} args */
const git = (cwd, args) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });

/** A vault with a profile and one day, pushed to a bare remote and cloned twice. */
async function clones() {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-bench-sync-'));
  const origin = join(dir, 'origin');
  await mkdir(join(origin, 'episodes/daily'), { recursive: true });
  await mkdir(join(origin, 'profile'), { recursive: true });
  await writeFile(join(origin, 'mem.config.json'), `${JSON.stringify({ timezone: 'UTC' })}\n`);
  await writeFile(join(origin, '.gitignore'), '.mem/\n');
  await writeFile(join(origin, 'profile/user.md'), '# Me\n\n- Drinks tea.\n');
  await writeFile(
    join(origin, `episodes/daily/${DAY}.md`),
    `---\ndate: ${DAY}\ntype: episode\n---\n# ${DAY}\n\n- 08:00 **Rain:** good morning ^e1\n`,
  );
  git(origin, ['init', '-q', '-b', 'main']);
  git(origin, ['add', '-A']);
  git(origin, ['commit', '-qm', 'init']);
  git(dir, ['clone', '-q', '--bare', origin, 'remote.git']);
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  git(dir, ['clone', '-q', 'remote.git', a]);
  git(dir, ['clone', '-q', 'remote.git', b]);
  return { dir, a, b };
}

/** @param {string} root @param {string} who @param {number} n */
async function writeEntries(root, who, n) {
  const vault = await openVault({ path: root, cache: false });
  for (let i = 0; i < n; i++) {
    const minute = 9 * 60 + Math.floor((i * 600) / n);
    const at = new Date(
      `${DAY}T${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00Z`,
    );
    await vault.remember({ text: `${who} entry ${i} about tea and the weather`, at, commit: false });
  }
  await vault.close();
  git(root, ['commit', '-qam', `${n} entries on ${who}`]);
}

/** @param {number} n */
async function oneRun(n) {
  const c = await clones();
  try {
    await writeEntries(c.a, 'a', n);
    await writeEntries(c.b, 'b', n);
    const va = await openVault({ path: c.a, cache: false });
    const vb = await openVault({ path: c.b, cache: false });
    // The first sync of each clone also sets up the merge driver; done once before measuring.
    let start = performance.now();
    await va.sync();
    const push = performance.now() - start;
    start = performance.now();
    const merged = await vb.sync();
    const merge = performance.now() - start;
    await va.close();
    await vb.close();
    if (merged.code !== 'merged') throw new Error(`expected a merge, got ${merged.code}`);
    return { push, merge, renumbered: merged.renumbered.length };
  } finally {
    await rm(c.dir, { recursive: true, force: true });
  }
}

/**
 * Memory added per vault open in one process, as `mem serve --vaults` holds them: `count` vaults
 * of `days` day notes with 20 entries each (a companion's first month), RSS and V8 heap + external.
 */
async function memoryPerVault(count, days) {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-bench-pool-'));
  try {
    const roots = [];
    for (let i = 0; i < count; i++) {
      const root = join(dir, `v${i}`);
      await mkdir(join(root, 'episodes/daily'), { recursive: true });
      await writeFile(join(root, 'mem.config.json'), `${JSON.stringify({ timezone: 'UTC' })}\n`);
      for (let d = 1; d <= days; d++) {
        const date = `2026-11-${String(d).padStart(2, '0')}`;
        const lines = Array.from(
          { length: 20 },
          (_, k) =>
            `- 09:${String(k).padStart(2, '0')} **Rain:** vault ${i} day ${d} entry ${k} about tea ^e${k + 1}`,
        );
        await writeFile(join(root, `episodes/daily/${date}.md`), `# ${date}\n\n${lines.join('\n')}\n`);
      }
      roots.push(root);
    }
    const used = () => {
      global.gc?.();
      const m = process.memoryUsage();
      return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
    };
    const before = used();
    const vaults = [];
    for (const root of roots) vaults.push(await openVault({ path: root, cache: false }));
    const after = used();
    // Open from cache: a first open saves the cache, the second (timed) loads it.
    for (const root of roots.slice(0, 10)) await (await openVault({ path: root })).close();
    const start = performance.now();
    for (const root of roots.slice(0, 10)) await (await openVault({ path: root })).close();
    const openFromCacheMs = round((performance.now() - start) / 10);
    for (const v of vaults) await v.close();
    const mib = (bytes) => round(bytes / count / 2 ** 20, 2);
    return {
      vaults: count,
      notesEach: days,
      rssMiBPerVault: mib(after.rss - before.rss),
      heapMiBPerVault: mib(after.heap - before.heap),
      openFromCacheMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
const results = [];
for (const n of args.includes('--pool-only') ? [] : [10, 100, 1000]) {
  const all = [];
  for (let r = 0; r < runs; r++) all.push(await oneRun(n));
  const row = {
    entriesEachSide: n,
    runs,
    mergeSyncMs: round(median(all.map((x) => x.merge))),
    pushSyncMs: round(median(all.map((x) => x.push))),
    renumbered: all[0].renumbered,
  };
  results.push(row);
  console.log(JSON.stringify(row));
}
const pool = await memoryPerVault(100, 30);
console.log(JSON.stringify(pool));
if (args.includes('--write') && results.length > 0) {
  const out = {
    ranAt: new Date().toISOString(),
    node: process.version,
    git: execFileSync('git', ['--version']).toString().trim(),
    sync: results,
    pool,
  };
  await writeFile(new URL('./results/sync.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
}
