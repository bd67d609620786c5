import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mem } from '../helpers/run-cli.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function plainFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memvault-plain-'));
  dirs.push(dir);
  await writeFile(join(dir, 'notes.md'), '# Notes\nThe kettle is blue.\n');
  return dir;
}

describe('a read of a folder that is not a vault', () => {
  it.each([[['recall', 'kettle']], [['compile', 'kettle']], [['show', 'notes']], [['doctor']]])(
    'mem %j says first that it reads the folder as it is, with the mem init hint, then answers',
    async (args) => {
      const dir = await plainFolder();
      const run = await mem(['--vault', dir, ...args]);
      expect(run.code).toBe(0);
      // compile then says what its document cost (mem: used/budget tokens), after the hint.
      expect(run.stderr.replace(/mem: \d+\/\d+ tokens \(\w+\)\n$/, '')).toBe(
        `mem: ${dir} is not a vault (no mem.config.json); reading every note in it as it is, with no index saved. Run \`mem init ${dir}\` to make it one\n`,
      );
      expect(run.stdout).not.toBe('');
      expect(await readdir(dir)).toEqual(['notes.md']);
    },
  );

  it.each([
    [['remember', 'hi']],
    [['note', 'set', 'notes', 'x=1']],
    [['mv', 'notes', 'other']],
    [['forget', 'notes']],
    [['ingest', 'notes.md']],
  ])('mem %j is refused before the folder is read: one line, the hint, nothing written', async (args) => {
    const dir = await plainFolder();
    const run = await mem(['--vault', dir, ...args], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `mem: ${dir} is not a vault (no mem.config.json); run \`mem init ${dir}\` to make it one. Reading works without it, writing and indexing do not\n`,
    );
    expect(await readdir(dir)).toEqual(['notes.md']);
  });
});
