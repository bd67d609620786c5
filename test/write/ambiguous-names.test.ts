import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const FILES = { 'profile/people/Mei.md': '# Mei\nfriend\n', 'insights/work/Mei.md': '# Mei\ncolleague\n' };
const AMBIGUOUS =
  "mem: Mei is ambiguous: insights/work/Mei.md, profile/people/Mei.md; give the note's path\n";

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('write verbs refuse an ambiguous name', () => {
  it.each([
    [['mv', 'Mei', 'Mei Lin']],
    [['forget', 'Mei']],
    [['forget', 'Mei', '--hard']],
    [['note', 'set', 'Mei', 'importance=0.9']],
    [['note', 'append', 'Mei', 'more']],
    [['note', 'section', 'Mei', 'Mei', 'replaced']],
  ])('mem %j lists the candidates and changes nothing', async (args) => {
    const root = await makeVault(FILES, { config: { timezone: 'UTC', git: { autoCommit: false } } });
    const out = await mem(['--vault', root, ...args]);
    expect(out).toMatchObject({ code: 2, stderr: AMBIGUOUS });
    expect((await readdir(join(root, 'profile/people'))).sort()).toEqual(['Mei.md']);
    expect((await readdir(join(root, 'insights/work'))).sort()).toEqual(['Mei.md']);
  });

  it('a path picks one of them', async () => {
    const root = await makeVault(FILES, { config: { timezone: 'UTC', git: { autoCommit: false } } });
    const out = await mem(['--vault', root, 'mv', 'work/Mei', 'insights/work/Mei Chen']);
    expect(out.code).toBe(0);
    expect(await readdir(join(root, 'insights/work'))).toEqual(['Mei Chen.md']);
  });
});
