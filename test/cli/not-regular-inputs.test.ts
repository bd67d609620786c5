// Every file a command reads that a person names or a vault holds goes through the regular-files-
// only reader: a FIFO (or a folder) given to `mem ingest`, `--batch` or `--history`, or left where
// Obsidian's settings or the merge driver's files should be, is refused at once with its name and
// kind, or read as absent, never waited on.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeEpisodeFiles } from '../../src/write/sync/merge-driver.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const made: string[] = [];
afterAll(async () => {
  await cleanupVaults();
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

const KINDS: Array<[string, string, (path: string) => Promise<void>]> = [
  ['a FIFO', 'a FIFO (named pipe)', async (path) => void execFileSync('mkfifo', [path])],
  ['a folder', 'a directory', async (path) => void (await mkdir(path))],
];

/** Each command that reads a file named on its command line, with that file's name in its arguments. */
const COMMANDS: Array<[string, (file: string) => string[]]> = [
  ['ingest', (file) => ['ingest', file]],
  ['compile --batch', (file) => ['compile', '--batch', file]],
  ['compile --history', (file) => ['compile', 'hello', '--history', file]],
  ['recall --batch', (file) => ['recall', '--batch', file]],
];

describe('files a command is given', () => {
  it.each(
    COMMANDS.flatMap(([name, args]) => KINDS.map(([what, kind, make]) => ({ name, args, what, kind, make }))),
  )(
    '$name with $what is refused at once, naming it',
    async ({ args, kind, make }) => {
      const root = await makeVault(
        { 'profile/user.md': '# User\nLoves ramen.\n' },
        { config: { timezone: 'UTC' } },
      );
      const file = join(root, 'input.txt');
      await make(file);
      const started = Date.now();
      const run = await mem([...args(file), '--vault', root], { cwd: root });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`${file} is ${kind}, not a regular file`);
    },
    30_000,
  );
});

describe('files a vault holds', () => {
  it.each(KINDS)(
    "mem init reads %s where Obsidian's settings should be as no setting",
    async (_, __, make) => {
      const root = await mkdtemp(join(tmpdir(), 'mem-not-regular-'));
      made.push(root);
      await mkdir(join(root, 'Notes'));
      await writeFile(join(root, 'Notes', 'a.md'), '# A\n');
      await mkdir(join(root, '.obsidian'));
      await writeFile(join(root, '.obsidian', 'daily-notes.json'), '{"folder": "Daily"}');
      await make(join(root, '.obsidian', 'app.json'));
      await make(join(root, '.obsidian', 'templates.json'));
      const started = Date.now();
      const run = await mem(['init'], { cwd: root });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(run.code, run.stderr).toBe(0);
    },
    30_000,
  );

  it.each(KINDS)('the merge driver refuses %s given as a side, at once', async (_, kind, make) => {
    const root = await makeVault();
    const [base, ours, theirs] = ['base', 'ours', 'theirs'].map((n) => join(root, n));
    await writeFile(base!, '# 2026-12-01\n');
    await writeFile(ours!, '# 2026-12-01\n- 09:00 a ^e1\n');
    await make(theirs!);
    await expect(mergeEpisodeFiles(base!, ours!, theirs!, 'episodes/daily/2026-12-01.md')).rejects.toThrow(
      `${theirs} is ${kind}, not a regular file`,
    );
  });
});
