// Names as the file systems vaults live on compare them (APFS, HFS+, NTFS: no case, no Unicode form):
// every twin of a name on disk or in one plan is found, and every name short enough passes and can
// really be written (its temp file included), over generated names: Latin with accents in NFC and
// NFD, case variants, CJK, emoji, and names at and past the length limit.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_NAME_BYTES,
  nameKey,
  nameLengthProblem,
  newNameProblem,
  PlannedNames,
  twinProblem,
  twinsOnDisk,
} from '../../src/vault/links/name-rules.js';
import { hashText, writeAtomic } from '../../src/vault/write-note.js';
import { cleanupVaults, makeVault } from '../helpers/make-vault.js';

afterAll(cleanupVaults);

const RUNS = process.env['MEM_SLOW'] ? 300 : 40;

/** Pieces names are made of: accented Latin (NFC and NFD differ), CJK, emoji, plain ASCII. */
const piece = fc.constantFrom(
  'café',
  'Ångström',
  'naïve',
  'Zoë',
  'ñ',
  '東京',
  '日記',
  '한국어',
  '🍵',
  '👩‍💻',
  'tea',
  'Mei Lin',
  '2026-11-29',
  'x',
);
const stem = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' ').normalize('NFC'));

/** Another spelling of `name` that the file systems above hold for the same name, or undefined. */
function twinOf(name: string, how: 'nfd' | 'upper' | 'lower' | 'nfd-upper'): string | undefined {
  const spelled =
    how === 'nfd'
      ? name.normalize('NFD')
      : how === 'upper'
        ? name.toUpperCase()
        : how === 'lower'
          ? name.toLowerCase()
          : name.toUpperCase().normalize('NFD');
  return spelled !== name && nameKey(spelled) === nameKey(name) ? spelled : undefined;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('twins', () => {
  it('every NFD or case spelling of a name on disk is its twin, and only the note itself is not', async () => {
    await fc.assert(
      fc.asyncProperty(
        stem,
        fc.constantFrom('nfd', 'upper', 'lower', 'nfd-upper') as fc.Arbitrary<'nfd'>,
        async (name, how) => {
          const twin = twinOf(name, how);
          fc.pre(twin !== undefined);
          const root = await makeVault({});
          await mkdir(join(root, 'insights'));
          await writeFile(join(root, 'insights', `${name}.md`), 'a\n');
          if (twin.normalize('NFC') === name) {
            // Another Unicode form alone names the same vault path: the note itself (found by findOnDisk).
            expect(await twinsOnDisk(root, `insights/${twin}.md`)).toEqual([]);
          } else {
            // A new note spelled as the twin would be the same file on a Mac: refused before any write.
            expect(await newNameProblem(root, `insights/${twin}.md`)).toMatch(
              /differs only in case or Unicode form/,
            );
            expect(await twinsOnDisk(root, `insights/${twin}.md`)).toEqual([`insights/${name}.md`]);
          }
          // The note's own name, and its NFC spelling, is no twin of it.
          expect(await newNameProblem(root, `insights/${name}.md`)).toBeUndefined();
          expect(await twinsOnDisk(root, `insights/${name.normalize('NFC')}.md`)).toEqual([]);
          // A rename of the note itself to another case is no twin either.
          expect(await twinsOnDisk(root, `insights/${twin}.md`, `insights/${name}.md`)).toEqual([]);
          // Two spellings in one folder: the note is ambiguous only when they differ in Unicode form.
          await writeFile(join(root, 'insights', `${twin}.md`), 'b\n');
          const names = await readdir(join(root, 'insights'));
          if (names.length === 2) {
            const ambiguous = twin.normalize('NFC') === name.normalize('NFC');
            expect(Boolean(await twinProblem(root, `insights/${name}.md`))).toBe(ambiguous);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a folder spelled another way is a twin too', async () => {
    const root = await makeVault({ 'Insights/tea.md': 'a\n' });
    expect(await twinsOnDisk(root, 'insights/new.md')).toEqual(['Insights']);
    expect(await twinsOnDisk(root, 'Insights/new.md')).toEqual([]);
  });

  it('one plan refuses a second spelling of a name it claimed, and takes the same spelling again', () => {
    fc.assert(
      fc.property(
        stem,
        fc.constantFrom('nfd', 'upper', 'lower', 'nfd-upper') as fc.Arbitrary<'nfd'>,
        (name, how) => {
          const twin = twinOf(name, how);
          fc.pre(twin !== undefined);
          const plan = new PlannedNames();
          expect(plan.claim(`insights/${name}.md`)).toBeUndefined();
          expect(plan.claim(`insights/${name}.md`)).toBeUndefined();
          const refused = plan.claim(`insights/${twin}.md`);
          // NFC and NFD of the same name are one vault path (mem keys notes NFC); the others collide.
          if (twin.normalize('NFC') === name) expect(refused).toBeUndefined();
          else expect(refused).toMatch(/differ only in case or Unicode form/);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('lengths', () => {
  const unit = fc.constantFrom('a', 'é', '東', '🍵');

  it('a name passes exactly when it fits, and every name that passes can be written', async () => {
    const root = await makeVault({});
    await fc.assert(
      fc.asyncProperty(unit, fc.integer({ min: 1, max: 120 }), async (u, count) => {
        const name = `${u.repeat(count)}.md`;
        const problem = nameLengthProblem(`insights/${name}`);
        expect(problem === undefined).toBe(bytes(name) <= MAX_NAME_BYTES);
        if (problem === undefined) {
          // writeAtomic's temp file adds to the name: the limit leaves room for it.
          const abs = join(root, 'insights', name);
          await writeAtomic(abs, 'x\n');
          // A replacement also links the old file under the temp name plus `.old`.
          await writeAtomic(abs, 'y\n', { expectedHash: hashText('x\n') });
        } else {
          expect(problem).toMatch(
            /^the file name is \d+ bytes in UTF-8; a note's name may have at most 225$/,
          );
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a 300-byte name and an overlong path are refused before anything is written', async () => {
    const root = await makeVault({});
    expect(await newNameProblem(root, `insights/${'é'.repeat(150)}.md`)).toBe(
      "the file name is 303 bytes in UTF-8; a note's name may have at most 225",
    );
    const deep = Array.from({ length: 12 }, () => 'f'.repeat(100)).join('/');
    expect(nameLengthProblem(`${deep}/n.md`)).toMatch(/^the path is 1216 bytes in UTF-8/);
    expect(await readdir(root)).toEqual(['mem.config.json']);
  });
});
