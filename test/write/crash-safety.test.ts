// Writers killed with SIGKILL at random moments leave every note whole, no stale lock, a sound git
// repository and an index that rebuilds. Needs `npm run build`. The slow tier runs 200 kills.
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { gitInit } from '../helpers/git.js';
import { cleanupVaults, makeVault, REPO_ROOT } from '../helpers/make-vault.js';
import { memProcess } from '../helpers/run-cli.js';

const KILLS = process.env['MEM_SLOW'] ? 200 : 8;
const DAY = 'episodes/daily/2026-11-30.md';
const run = promisify(execFile);

afterEach(cleanupVaults);

/** Starts a writer looping remember, and kills it after `ms` (or lets it end). */
function killAfter(root: string, tag: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'test/fixtures/remember/append-many.mjs'), root, tag, '50'],
      {
        stdio: 'ignore',
      },
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('writers killed at random moments', () => {
  it(`${KILLS} kills: notes whole, no temp files, no stale lock, git fsck clean, index rebuilds`, async () => {
    const root = await makeVault({ [DAY]: '# 2026-11-30\n\n' }, { config: { timezone: 'Asia/Shanghai' } });
    await gitInit(root);
    for (let i = 0; i < KILLS; i++) await killAfter(root, `K${i}`, 50 + Math.floor(Math.random() * 600));

    const lines = (await readFile(join(root, DAY), 'utf8')).split('\n');
    const broken = lines.filter(
      (l) => !/^(# 2026-11-30|- 12:00 \*\*K\d+:\*\* K\d+ entry \d+ \^e\d+|)$/.test(l),
    );
    expect(broken).toEqual([]);
    expect((await readdir(join(root, 'episodes/daily'))).filter((f) => f !== '2026-11-30.md')).toEqual([]);
    // The lock a killed writer left is broken at once (its pid is dead), so the next write goes through.
    const next = await memProcess([
      '--vault',
      root,
      'remember',
      'after the kills',
      '--at',
      '2026-11-30T12:00:00+08:00',
    ]);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    await run('git', ['fsck', '--no-progress'], { cwd: root });
    const rebuilt = await memProcess(['--vault', root, 'index', '--rebuild']);
    expect(rebuilt.code).toBe(0);
  }, 600_000);
});
