import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/indexing/doctor.js';
import { refreshIndex } from '../../src/indexing/refresh-index.js';
import { TextIndex } from '../../src/indexing/text/text-index.js';
import { VaultIndex } from '../../src/indexing/vault-index.js';
import { parseNote } from '../../src/vault/markdown/parse-note.js';
import { forgetPath } from '../helpers/half-added.js';
import { ignoreEnvVault } from '../helpers/ignore-env-vault.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';
import { mem } from '../helpers/run-cli.js';

const DAY = 'episodes/daily/2026-11-29.md';
const TWICE = '# 2026-11-29\n\n- 09:00 first entry ^e1\n- 10:00 second entry ^e1\n- 11:00 third ^e2\n';

ignoreEnvVault();

afterEach(async () => {
  await cleanupVaults();
});

describe('indexing never fails on a duplicate block id', () => {
  it('a block id used twice gives the second entry its own anchor', () => {
    const note = parseNote(DAY, TWICE);
    expect(note.sections.filter((s) => s.kind === 'block').map((s) => [s.anchor, s.text])).toEqual([
      ['^e1', 'first entry'],
      ['^e1 (2)', 'second entry'],
      ['^e2', 'third'],
    ]);
  });

  it('doctor warns about it, naming the note, the id and the lines', async () => {
    const root = await makeVault({ [DAY]: TWICE });
    const index = new VaultIndex();
    await refreshIndex(root, index);
    expect(diagnose(index).duplicateBlockIds).toEqual([{ path: DAY, id: 'e1', lines: [3, 4] }]);
    const out = await mem(['--vault', root, 'doctor']);
    expect(out.stdout).toContain(
      `duplicate block ids: 1\n  ${DAY}: ^e1 on lines 3, 4 (links reach only the first)\n`,
    );
  });

  it('a text index that still holds sections of a note (a failed add, saved) takes the note again', () => {
    const note = parseNote(DAY, TWICE);
    const first = new TextIndex();
    first.add(note);
    const size = first.size;
    // The state a half-finished add left behind: MiniSearch has the sections, the path map does not.
    const restored = forgetPath(first, DAY);
    expect(restored.has(DAY)).toBe(false);
    expect(() => restored.add(note)).not.toThrow();
    expect(restored.size).toBe(size);
    // ^e2 follows with 'second entry' as its context.
    expect(restored.search('second').map((h) => h.id)).toEqual([`${DAY}#^e1 (2)`, `${DAY}#^e2`]);
  });

  it('remember and index --rebuild work in a vault whose daily note repeats an id', async () => {
    const root = await makeVault({ [DAY]: TWICE });
    const cli = (...args: string[]) => mem(['--vault', root, ...args]);
    expect((await cli('index', '--rebuild')).code).toBe(0);
    const out = await cli('remember', 'a new entry', '--at', '2026-11-29T12:00:00+08:00');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(await readFile(join(root, DAY), 'utf8')).toMatch(/- 12:00 a new entry \^e3\n$/);
    expect((await cli('index', '--rebuild')).code).toBe(0);
  });
});
