import { afterEach, describe, expect, it } from 'vitest';
import { indexProgress } from '../../src/cli/commands/index-cmd.js';
import type { CliIO } from '../../src/cli/io.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

afterEach(cleanupVaults);

const notes = (n: number) =>
  Object.fromEntries([
    ['mem.config.json', '{}\n'],
    ...Array.from({ length: n }, (_, i) => [`insights/n${i}.md`, `# Note ${i}\n\nAbout topic ${i}.\n`]),
  ]);

describe('mem index progress', () => {
  it('on a terminal, shows notes read of the total on stderr, then erases the line', async () => {
    const root = await makeVault(notes(130));
    const run = await mem(['index'], { cwd: root, isTTY: true });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('\rreading notes 130 / 130 · ');
    expect(run.stderr.endsWith('\r\x1b[K')).toBe(true);
    expect(run.stdout).toMatch(/^130 notes indexed in \d+ ms \(130 added/);
  });

  it('prints nothing extra when stdout is not a terminal, or with --json', async () => {
    const root = await makeVault(notes(130));
    const piped = await mem(['index', '--rebuild'], { cwd: root });
    expect(piped.stderr).toBe('');
    const json = await mem(['index', '--rebuild', '--json'], { cwd: root, isTTY: true });
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ notes: 130, added: 130 });
  });

  it('a warm index with nothing to read shows no progress', async () => {
    const root = await makeVault(notes(3));
    await mem(['index'], { cwd: root });
    const run = await mem(['index'], { cwd: root, isTTY: true });
    expect(run.stderr).toBe('');
  });

  it('redraws at most every 200 ms, always the last count, with the rate and the time left', () => {
    let out = '';
    const io = { stderr: (text: string) => (out += text) } as unknown as CliIO;
    let clock = 0;
    const progress = indexProgress(io, () => clock);
    clock = 1000;
    progress.update(100, 1000);
    clock = 1100;
    progress.update(200, 1000);
    clock = 2000;
    progress.update(200, 1000);
    clock = 2500;
    progress.update(1000, 1000);
    progress.clear();
    expect(out.split('\r').filter(Boolean)).toEqual([
      'reading notes 100 / 1000 · 100/s · 9 s left\x1b[K',
      'reading notes 200 / 1000 · 100/s · 8 s left\x1b[K',
      'reading notes 1000 / 1000 · 400/s · 0 s left\x1b[K',
      '\x1b[K',
    ]);
  });
});
